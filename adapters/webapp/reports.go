package webapp

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// ----- reports: one section per report, each with a bar chart drawn as
// SVG on the server (rects and escaped labels, no script) and the link to
// its CSV download on the JSON API -----

// Chart geometry, in SVG user units.
const (
	chartLabelWidth = 180
	chartBarWidth   = 380
	chartValueWidth = 60
	chartBarHeight  = 22
	chartGap        = 6
)

// chartBar is one bar: its label and value, where it is drawn and how long.
type chartBar struct {
	Label string
	// Datetime is the machine form of a label that names a time
	// ("2026-12"), kept in the table's <time datetime>; "" for others.
	Datetime string
	Value    int
	Y        int // top of the bar
	TextY    int // baseline of its label and value
	W        int // length of the bar, at least 1 for a value above 0
	ValueX   int
}

// barChart is a horizontal bar chart of counts. Its text alternatives:
// the SVG is an image named by its title and described by Summary, and
// the page shows its numbers as a table too ("chart-figure"), whose
// columns LabelHeading and ValueHeading name.
type barChart struct {
	ID, Title     string
	LabelHeading  string // what the labels are: "Month"
	ValueHeading  string // what the values count: "Loans"
	Summary       string
	Width, Height int
	LabelWidth    int
	Bars          []chartBar
}

// newBarChartIn lays the bars out, the longest as wide as the chart, its
// summary in lang; the title and headings are the caller's, already in
// lang.
func newBarChartIn(lang i18n.Lang, id, title, labelHeading, valueHeading string, labels []string, values []int) barChart {
	c := barChart{ID: id, Title: title, LabelHeading: labelHeading, ValueHeading: valueHeading,
		Width: chartLabelWidth + chartBarWidth + chartValueWidth, LabelWidth: chartLabelWidth}
	top := 1
	high, low := 0, 0
	for i, v := range values {
		top = max(top, v)
		if v > values[high] {
			high = i
		}
		if v < values[low] {
			low = i
		}
	}
	switch len(labels) {
	case 0:
	case 1:
		c.Summary = lang.T("One bar: %s, %d.", labels[0], values[0])
	default:
		c.Summary = lang.T("%d bars. The highest: %s, %d; the lowest: %s, %d.", len(labels), labels[high], values[high], labels[low], values[low])
	}
	for i, label := range labels {
		y := i * (chartBarHeight + chartGap)
		w := values[i] * chartBarWidth / top
		if values[i] > 0 {
			w = max(w, 1)
		}
		c.Bars = append(c.Bars, chartBar{Label: label, Value: values[i], Y: y, TextY: y + chartBarHeight - 6, W: w,
			ValueX: chartLabelWidth + w + 6})
	}
	c.Height = max(len(labels)*(chartBarHeight+chartGap), chartBarHeight)
	return c
}

type reportsView struct {
	base
	Base       string
	From, To   string
	RangeError string
	CSV        map[string]string // report name → its CSV download

	Months       collection.LoansPerMonth
	MonthsChart  barChart
	Top          collection.TopTitles
	TopChart     barChart
	Overdue      collection.OverdueByHomeroom
	OverdueChart barChart
	Genres       collection.Collection
	GenreChart   barChart
	Levels       collection.Collection
	LevelChart   barChart
	Unused       collection.NeverBorrowed
	Age          collection.CollectionAge
	Queues       collection.HoldQueues
	QueueChart   barChart
	AppReading   collection.AppReadingNotHeld
	OffLevel     collection.OutsideGradesUnused
}

// reportsPageTitles is how many never-borrowed titles the page lists (the
// CSV has them all).
const reportsPageTitles = 20

func (a *App) reports(w http.ResponseWriter, r *http.Request, school library.School) {
	q := r.URL.Query()
	v := reportsView{base: a.schoolBase(r, school, "Reports", "reports"), Base: schoolPath(school),
		From: q.Get("from"), To: q.Get("to")}
	ctx, rep := r.Context(), a.deps.Library.Reports
	months, err := rep.LoansPerMonth(ctx, school.ID, v.From, v.To)
	if errs.Is(err, errs.Invalid) {
		// A range the form cannot take: say so, and show the default one.
		v.RangeError = tr(r, "The dates must be YYYY-MM-DD, to not before from and less than 5 years after it; showing the last twelve months.")

		months, err = rep.LoansPerMonth(ctx, school.ID, "", "")
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v.Months, v.From, v.To = months, months.Range.From, months.Range.To
	if err := a.fillReports(r, school, &v); err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "reports", v)
}

// fillReports runs every report but loans per month (already in v) for
// the page, and lays out their charts and downloads.
func (a *App) fillReports(r *http.Request, school library.School, v *reportsView) error {
	ctx, rep := r.Context(), a.deps.Library.Reports
	var err error
	if v.Top, err = rep.TopTitles(ctx, school.ID, v.From, v.To, library.DefaultTopTitles); err != nil {
		return err
	}
	if v.Overdue, err = rep.OverdueByHomeroom(ctx, school.ID); err != nil {
		return err
	}
	if v.Genres, err = rep.Collection(ctx, school.ID, library.CollectionGenre); err != nil {
		return err
	}
	if v.Levels, err = rep.Collection(ctx, school.ID, library.CollectionReadingLevel); err != nil {
		return err
	}
	if v.Unused, err = rep.NeverBorrowed(ctx, school.ID, usecase.ListQuery{Page: 1, Limit: reportsPageTitles}, false); err != nil {
		return err
	}
	if v.Age, err = rep.MedianAge(ctx, school.ID); err != nil {
		return err
	}
	if v.Queues, err = rep.HoldQueues(ctx, school.ID, library.DefaultHoldQueues); err != nil {
		return err
	}
	if v.AppReading, err = rep.AppReadingNotHeld(ctx, school.ID, "", "", reportsPageTitles); err != nil {
		return err
	}
	if v.OffLevel, err = rep.OutsideGradesUnused(ctx, school.ID, usecase.ListQuery{Page: 1, Limit: reportsPageTitles}, false); err != nil {
		return err
	}
	var labels []string
	var values []int
	lang := i18n.From(ctx)
	for _, m := range v.Months.Months {
		labels, values = append(labels, lang.MonthText(m.Month)), append(values, m.Loans)
	}
	v.MonthsChart = newBarChartIn(lang, "chart-loans-per-month", tr(r, "Loans per month"), tr(r, "Month"), tr(r, "Loans"), labels, values)
	for i, m := range v.Months.Months {
		v.MonthsChart.Bars[i].Datetime = m.Month
	}
	labels, values = nil, nil
	for _, t := range v.Top.Titles {
		labels, values = append(labels, t.Title), append(values, t.Loans)
	}
	v.TopChart = newBarChartIn(lang, "chart-top-titles", tr(r, "Loans per title"), tr(r, "Title"), tr(r, "Loans"), labels, values)
	labels, values = nil, nil
	for _, h := range v.Overdue.Homerooms {
		labels, values = append(labels, orUnknown(h.Homeroom, tr(r, "No homeroom"))), append(values, h.Loans)
	}
	v.OverdueChart = newBarChartIn(lang, "chart-overdue-by-homeroom", tr(r, "Overdue loans per homeroom"), tr(r, "Homeroom"), tr(r, "Overdue loans"), labels, values)
	v.GenreChart = collectionChart(r, "chart-collection-by-genre", tr(r, "Copies per genre"), tr(r, "Genre"), v.Genres)
	labels, values = nil, nil
	for _, q := range v.Queues.Titles {
		labels, values = append(labels, q.Book.Title), append(values, q.Waiting)
	}
	v.QueueChart = newBarChartIn(lang, "chart-hold-queues", tr(r, "Waiting holds per title"), tr(r, "Title"), tr(r, "Waiting holds"), labels, values)
	v.LevelChart = collectionChart(r, "chart-collection-by-reading-level", tr(r, "Copies per reading level"), tr(r, "Reading level"), v.Levels)

	v.CSV = map[string]string{}
	for _, name := range library.ReportNames {
		q := url.Values{"format": {"csv"}}
		if user.PrincipalFrom(ctx).Role == user.RoleAdmin {
			q.Set("schoolId", school.ID)
		}
		if name == library.ReportLoansPerMonth || name == library.ReportTopTitles {
			q.Set("from", v.From)
			q.Set("to", v.To)
		}
		v.CSV[name] = "/api/library/reports/" + name + "?" + q.Encode()
	}
	return nil
}

func collectionChart(r *http.Request, id, title, labelHeading string, c collection.Collection) barChart {
	var labels []string
	var values []int
	for _, g := range c.Rows {
		labels, values = append(labels, orUnknown(g.Value, tr(r, "Unknown"))), append(values, g.Copies)
	}
	return newBarChartIn(i18n.From(r.Context()), id, title, labelHeading, tr(r, "Copies"), labels, values)
}

func orUnknown(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

// perCopy writes a title's waiting holds per lendable copy as the CSV
// does ("1.5"), "" when it has no copy to lend (the page says so in its
// language).
func perCopy(q collection.TitleQueue) string {
	v, ok := q.HoldsPerCopy()
	if !ok {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatYears writes a median year or age without a needless ".0".
func formatYears(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

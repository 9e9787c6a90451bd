// Command uploadbench measures what uploads cost the server process: it
// starts each given service binary on the embedded store with the demo
// data, signs in as the demo librarian, and posts dry-run holdings imports
// of a ~60 MiB holdings CSV and of a 50,000-record MARCXML file, and dry-run
// roster syncs of a 5,000-student OneRoster zip, one and three at once,
// each case on a fresh process. It samples the process's
// VmRSS every 20 ms and reports its peak growth over the RSS before the
// imports, the process's VmHWM, and the time until every answer came.
//
//	go run ./bench/uploadbench -bin main=/tmp/libraryd-main -bin branch=/tmp/libraryd-branch
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/adapters/marc"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binaries
	flag.Var(&bins, "bin", "name=path of a libraryd binary (repeat); name=path:KEY=VALUE adds a setting")
	csvMiB := flag.Int("csv-mib", 60, "size of the holdings CSV")
	marcRecords := flag.Int("marc-records", 50000, "records of the MARCXML file")
	rosterStudents := flag.Int("roster-students", 5000, "students of the OneRoster zip")
	only := flag.String("files", "csv,csv-bad,marcxml", "which files to post: csv (valid), csv-bad (a problem on every row), marcxml, roster (a OneRoster zip to the roster sync)")
	flag.BoolVar(&commit, "commit", false, "import for real instead of dry runs: a large file becomes a job, polled until it ends (one school: a second at once is 409 import_running)")
	flag.Parse()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "uploadbench: give at least one -bin name=path")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "uploadbench-")
	check(err)
	defer os.RemoveAll(work)
	all := []struct{ name, format, ctype, path string }{
		{"csv", "csv", "text/csv", filepath.Join(work, "holdings.csv")},
		{"csv-bad", "csv", "text/csv", filepath.Join(work, "holdings-bad.csv")},
		{"marcxml", "marcxml", "application/xml", filepath.Join(work, "holdings.xml")},
		{"roster", "oneroster", "application/zip", filepath.Join(work, "roster.zip")},
		{"roster-caps", "oneroster", "application/zip", filepath.Join(work, "roster-caps.zip")},
	}
	var files = all[:0:0]
	for _, f := range all {
		if !strings.Contains(","+*only+",", ","+f.name+",") {
			continue
		}
		files = append(files, f)
		switch f.name {
		case "csv":
			check(writeCSV(f.path, *csvMiB<<20, false))
		case "csv-bad":
			check(writeCSV(f.path, *csvMiB<<20, true))
		case "marcxml":
			check(writeMARCXML(f.path, *marcRecords))
		case "roster":
			check(writeRoster(f.path, *rosterStudents, 1, 0))
		case "roster-caps":
			// The most the caps take: 5,000 students in 19 classes each
			// (95,200 enrollments, below the row cap of 100,000), every user row
			// padded in an extension column: 22.8 MiB expanded.
			check(writeRoster(f.path, 5000, 19, 3000))
		}
	}
	for _, f := range files {
		fi, err := os.Stat(f.path)
		check(err)
		fmt.Printf("file %s: %.1f MiB", f.name, float64(fi.Size())/(1<<20))
		if zr, err := zip.OpenReader(f.path); err == nil {
			var n uint64
			for _, e := range zr.File {
				n += e.UncompressedSize64
			}
			zr.Close()
			fmt.Printf(" (%.1f MiB expanded)", float64(n)/(1<<20))
		}
		fmt.Println()
	}
	fmt.Println("| binary | file | at once | statuses | RSS before | peak RSS growth | VmHWM | time |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, b := range bins {
		name, path, _ := strings.Cut(b, "=")
		var extra []string
		if p, kv, ok := strings.Cut(path, ":"); ok {
			path, extra = p, strings.Split(kv, ",")
		}
		for _, f := range files {
			for _, n := range []int{1, 3} {
				r, err := measure(path, extra, work, f.format, f.ctype, f.path, n)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s x%d: %v\n", name, f.name, n, err)
					continue
				}
				fmt.Printf("| %s | %s | %d | %s | %d MiB | %d MiB | %d MiB | %.1f s |\n", name, f.name, n, r.statuses,
					r.before>>10, (r.peak-r.before)>>10, r.hwm>>10, r.took.Seconds())
			}
		}
	}
}

type result struct {
	statuses          string
	before, peak, hwm int64 // KiB
	took              time.Duration
}

// measure starts the binary on a fresh data directory and posts n dry runs
// of the file at once.
func measure(bin string, extra []string, work, format, ctype, file string, n int) (result, error) {
	dir, err := os.MkdirTemp(work, "data-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return result{}, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LIBRARY_DATA_DIR="+dir, "LIBRARY_DEMO_DATA=true", fmt.Sprintf("LIBRARY_ADDR=127.0.0.1:%d", port),
		"LIBRARY_METRICS_ADDR=off", "LIBRARY_COOKIE_SECURE=false", "LIBRARY_REQUEST_TIMEOUT=5m", "LIBRARY_READ_TIMEOUT=10m",
		"LIBRARY_WRITE_TIMEOUT=10m", "LIBRARY_ISSUER_URL="+base)
	cmd.Env = append(cmd.Env, extra...)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	if err := awaitReady(base, time.Minute); err != nil {
		return result{}, fmt.Errorf("%v\n%s", err, logs.String())
	}
	token, err := login(base)
	if err != nil {
		return result{}, err
	}
	pid := cmd.Process.Pid
	time.Sleep(500 * time.Millisecond)
	before, _ := procStatus(pid, "VmRSS")
	peak := before
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if v, err := procStatus(pid, "VmRSS"); err == nil && v > peak {
					peak = v
				}
			}
		}
	}()
	start := time.Now()
	statuses := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = post(base, token, format, ctype, file)
		}(i)
	}
	wg.Wait()
	took := time.Since(start)
	close(stop)
	<-sampled
	hwm, _ := procStatus(pid, "VmHWM")
	sort.Strings(statuses)
	if joined := strings.Join(statuses, " "); strings.Contains(joined, "failed") || strings.Contains(joined, "internal_error") {
		// What the service logged about it, for whoever reads the table.
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
				fmt.Fprintln(os.Stderr, "service:", line)
			}
		}
	}
	return result{statuses: strings.Join(statuses, " "), before: before, peak: peak, hwm: hwm, took: took}, nil
}

// commit posts real imports instead of dry runs (-commit).
var commit bool

// post sends one dry run (or, with -commit, one import, following its job
// to its end) and returns its status (and error code, or the job's end).
func post(base, token, format, ctype, file string) string {
	f, err := os.Open(file)
	if err != nil {
		return "open: " + err.Error()
	}
	defer f.Close()
	fi, _ := f.Stat()
	query := "?dry_run=true&format=" + format
	if commit {
		query = "?format=" + format
	}
	route := "/api/library/holdings/imports" + query
	if format == "oneroster" {
		route = "/api/library/students/sync?full=false"
		if !commit {
			route += "&dry_run=true"
		}
	}
	req, _ := http.NewRequest(http.MethodPost, base+route, f)
	req.ContentLength = fi.Size()
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "error"
	}
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if body.Error.Code != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, body.Error.Code)
	}
	if resp.StatusCode == http.StatusAccepted {
		return "202 job " + awaitJob(base+resp.Header.Get("Location"), token)
	}
	return strconv.Itoa(resp.StatusCode)
}

// awaitJob reads a job's state every second until it is no longer
// running and returns it ("done", or "failed" with the error's code).
func awaitJob(url, token string) string {
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "error"
		}
		var body struct {
			Job struct {
				State string `json:"state"`
				Error *struct {
					Code string `json:"code"`
				} `json:"error"`
			} `json:"job"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			// A long job outlasts the status reads a minute allows.
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(wait, 1)) * time.Second)
			continue
		case resp.StatusCode != http.StatusOK:
			return "status read " + strconv.Itoa(resp.StatusCode)
		case body.Job.State == "failed" && body.Job.Error != nil:
			return "failed " + body.Job.Error.Code
		case body.Job.State != "running":
			return body.Job.State
		}
		time.Sleep(time.Second)
	}
}

func login(base string) (string, error) {
	resp, err := http.Post(base+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"librarian@maplegrove.example.org","password":"reading-demo-2026"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.AccessToken == "" {
		return "", fmt.Errorf("login: %d %v", resp.StatusCode, err)
	}
	return out.AccessToken, nil
}

func awaitReady(base string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for ctx.Err() == nil {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the service was not ready within %v", within)
}

// procStatus reads a kB field of /proc/PID/status.
func procStatus(pid int, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s", field)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writeCSV writes a holdings CSV of about size bytes: books of four
// copies each, padded with 20 long subjects (bad: with many short ones,
// past the 20 a book may have, a problem on every row), within the row
// cap.
func writeCSV(path string, size int, bad bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "title,author,isbn,barcode,call_number,publisher,year,subjects")
	rows := holdingsfile.MaxHoldingRecords * 4
	pad := size/rows - 90
	subjects := strings.TrimSuffix(strings.Repeat("Adventure; ", pad/11), "; ")
	if !bad {
		var list []string
		for i := 0; i < library.MaxSubjects; i++ {
			list = append(list, fmt.Sprintf("Subject %02d %s", i, strings.Repeat("x", min(pad/library.MaxSubjects-13, library.MaxSubject-11))))
		}
		subjects = strings.Join(list, "; ")
	}
	for i := 0; i < rows; i++ {
		book := i / 4
		fmt.Fprintf(w, "Imported title %05d,Author %d,,UB%09d,823 A%03d,Puffin,%d,%s\n", book, book%977, i, book%1000, 1990+book%30, subjects)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeMARCXML writes n records of one copy each through the MARC codec.
func writeMARCXML(path string, n int) error {
	records := make([]library.HoldingRecord, n)
	for i := range records {
		records[i] = library.HoldingRecord{Title: fmt.Sprintf("Imported title %05d", i), Authors: []string{fmt.Sprintf("Author %d", i%977)},
			BookDetails: library.BookDetails{Publisher: "Puffin", PublishedYear: 1990 + i%30, Subjects: []string{"Adventure"}, CallNumber: fmt.Sprintf("823 A%03d", i%1000)},
			Items:       []library.HoldingItem{{Barcode: fmt.Sprintf("31234%09d", i)}}}
	}
	var buf bytes.Buffer
	if err := marc.NewCodec().EncodeMARCXML(&buf, records); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

// writeRoster writes a OneRoster 1.1 zip of one school with n students,
// n/25 teachers and a homeroom class of 25 students each, every student
// and teacher enrolled in their homeroom and students in classesEach-1
// other classes too; pad bytes fill an extension column of each user.
func writeRoster(path string, n, classesEach, pad int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	file := func(name string, header string, rows func(w io.Writer)) error {
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, header)
		rows(bw)
		return bw.Flush()
	}
	classes := (n + 24) / 25
	steps := []error{
		file("manifest.csv", "propertyName,value", func(w io.Writer) {
			fmt.Fprint(w, "manifest.version,1.0\noneroster.version,1.1\nfile.orgs,bulk\nfile.users,bulk\nfile.classes,bulk\nfile.enrollments,bulk\n")
		}),
		file("orgs.csv", "sourcedId,status,dateLastModified,name,type,identifier,parentSourcedId", func(w io.Writer) {
			fmt.Fprintln(w, "org-1,active,2026-08-01T00:00:00Z,Maple Grove Primary,school,MGP,")
		}),
		file("users.csv", "sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password,ext_notes", func(w io.Writer) {
			notes := strings.Repeat("n", pad)
			for i := 0; i < n; i++ {
				fmt.Fprintf(w, "stu-%05d,active,2026-08-01T00:00:00Z,true,org-1,student,pupil%05d,,Pupil,Number %d,,S%05d,,,,,%02d,,%s\n", i, i, i, i, 1+i%12, notes)
			}
			for c := 0; c < classes; c++ {
				fmt.Fprintf(w, "tea-%04d,active,2026-08-01T00:00:00Z,true,org-1,teacher,teacher%04d,,Teacher,Number %d,,,teacher%04d@school.example.org,,,,,,%s\n", c, c, c, c, notes)
			}
		}),
		file("classes.csv", "sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods", func(w io.Writer) {
			for c := 0; c < classes; c++ {
				fmt.Fprintf(w, "cls-%04d,active,2026-08-01T00:00:00Z,Room %d,,,,homeroom,,org-1,term-1,,,\n", c, c)
			}
			for c := 1; c < classesEach; c++ {
				fmt.Fprintf(w, "sub-%02d,active,2026-08-01T00:00:00Z,Subject %d,,,,scheduled,,org-1,term-1,,,\n", c, c)
			}
		}),
		file("enrollments.csv", "sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate", func(w io.Writer) {
			for i := 0; i < n; i++ {
				fmt.Fprintf(w, "enr-s%05d,active,2026-08-01T00:00:00Z,cls-%04d,org-1,stu-%05d,student,false,,\n", i, i/25, i)
				for c := 1; c < classesEach; c++ {
					fmt.Fprintf(w, "enr-s%05d-%02d,active,2026-08-01T00:00:00Z,sub-%02d,org-1,stu-%05d,student,false,,\n", i, c, c, i)
				}
			}
			for c := 0; c < classes; c++ {
				fmt.Fprintf(w, "enr-t%04d,active,2026-08-01T00:00:00Z,cls-%04d,org-1,tea-%04d,teacher,true,,\n", c, c, c)
			}
		}),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "uploadbench:", err)
		os.Exit(1)
	}
}

// lockedBuffer is the service's output, read while the service still
// writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

package selfcheck

import (
	"context"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Session is a kiosk signed in. Its requests act as desk staff of the
// kiosk's school: the kiosk's login (as login@kiosk) names them in the
// audit log.
type Session struct {
	Kiosk  library.Kiosk
	School library.School
}

// Context returns ctx acting as the kiosk.
func (k Session) Context(ctx context.Context) context.Context {
	return user.WithPrincipal(ctx, user.Principal{AccountID: k.Kiosk.ID, Email: k.Kiosk.Login + "@kiosk", Role: user.RoleStaff,
		SchoolID: k.Kiosk.SchoolID})
}

// ErrKioskSignIn is the one answer to a wrong login or password.
func ErrKioskSignIn() error {
	return errs.E(errs.Unauthenticated, errs.CodeInvalidCredentials, "The kiosk's login or password is wrong.")
}

// SignIn checks a kiosk's login and password from the client address.
// The login throttle weighs it as it weighs a person's sign-in (the login
// as login@kiosk): wrong passwords from one address, or for one login,
// lock further tries for a while. An unknown login costs what a wrong
// password costs, so logins cannot be found by timing.
// Errors: Unauthenticated "invalid_credentials", RateLimited
// "too_many_attempts", Unavailable when the throttle's store fails.
func (s *SelfCheck) SignIn(ctx context.Context, login, password, client string) (Session, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	if login == "" || len(login) > library.MaxKioskLogin || password == "" || len(password) > user.MaxPasswordLength {
		return Session{}, ErrKioskSignIn()
	}
	attempt, err := s.d.Throttle.Admit(ctx, ports.LoginKeys{Email: login + "@kiosk", Client: client})
	if err != nil {
		return Session{}, err
	}
	// Whatever ends the sign-in early frees the attempt's place uncounted.
	defer attempt.Release(ctx)
	k, err := s.d.Kiosks.KioskByLogin(ctx, login)
	if errs.Is(err, errs.NotFound) {
		s.d.Hasher.VerifyDummy(password)
		return Session{}, failed(ctx, attempt)
	} else if err != nil {
		return Session{}, err
	}
	if ok, _ := s.d.Hasher.Verify(k.SecretHash, password); !ok {
		return Session{}, failed(ctx, attempt)
	}
	_, _ = attempt.Succeeded(ctx) // best effort, as a person's sign-in
	school, err := s.d.Schools.Get(ctx, k.SchoolID)
	if err != nil {
		return Session{}, err
	}
	return Session{Kiosk: k, School: school}, nil
}

// failed counts a wrong password; when it cannot be counted the sign-in
// fails closed with the throttle's error.
func failed(ctx context.Context, attempt ports.LoginAttempt) error {
	if err := attempt.Failed(ctx); err != nil {
		return err
	}
	return ErrKioskSignIn()
}

// Current checks that the session's kiosk still exists (a librarian may
// have removed it since it signed in) and returns the session with the
// school's settings as they are now.
// Errors: Unauthenticated "invalid_credentials" for a removed kiosk.
func (s *SelfCheck) Current(ctx context.Context, k Session) (Session, error) {
	now, err := s.d.Kiosks.KioskByLogin(ctx, k.Kiosk.Login)
	if errs.Is(err, errs.NotFound) || (err == nil && now.ID != k.Kiosk.ID) {
		return Session{}, ErrKioskSignIn()
	} else if err != nil {
		return Session{}, err
	}
	school, err := s.d.Schools.Get(ctx, now.SchoolID)
	if err != nil {
		return Session{}, err
	}
	return Session{Kiosk: now, School: school}, nil
}

// Patron is what a kiosk shows of a student.
type Patron struct {
	Student  user.Account
	Standing library.Standing
	Loans    []circulation.LoanView // active and overdue, by due date
}

// Overdue counts the patron's overdue loans.
func (p Patron) Overdue() int {
	n := 0
	for _, l := range p.Loans {
		if l.Status == library.LoanOverdue {
			n++
		}
	}
	return n
}

// maxPatronMatches is how many students a card number's search reads:
// the number matches one exactly, the rest are partial matches.
const maxPatronMatches = 20

// Patron finds a student of the kiosk's school by card number (the
// student number, or a member of staff's email) with their standing and
// loans.
// Errors: NotFound "student_not_found".
func (s *SelfCheck) Patron(ctx context.Context, k Session, number string) (Patron, error) {
	ctx = k.Context(ctx)
	st, err := s.student(ctx, k.School.ID, number)
	if err != nil {
		return Patron{}, err
	}
	standing, err := s.d.Circulation.Standing(ctx, k.School.ID, st.ID)
	if err != nil {
		return Patron{}, err
	}
	loans, err := s.d.Circulation.Loans(ctx, k.School.ID, circulation.LoanFilter{StudentID: st.ID})
	if err != nil {
		return Patron{}, err
	}
	return Patron{Student: st, Standing: standing, Loans: loans}, nil
}

// PatronAccount finds a student of the kiosk's school by card number, as
// Patron does, without their standing and loans: the kiosk says its
// answers about a check-out or renewal in the student's language.
// Errors: NotFound "student_not_found".
func (s *SelfCheck) PatronAccount(ctx context.Context, k Session, number string) (user.Account, error) {
	return s.student(k.Context(ctx), k.School.ID, number)
}

func (s *SelfCheck) student(ctx context.Context, schoolID, number string) (user.Account, error) {
	number = strings.TrimSpace(number)
	if number == "" || len(number) > 254 {
		return user.Account{}, library.ErrStudentNotFound()
	}
	if strings.Contains(number, "@") {
		if st, err := s.d.Circulation.StaffBorrower(ctx, schoolID, number); err == nil {
			return st, nil
		}
	}
	page, err := s.d.Students.Search(ctx, schoolID, "", usecase.ListQuery{Page: 1, Limit: maxPatronMatches, Search: number})
	if err != nil {
		if errs.Is(err, errs.Invalid) {
			return user.Account{}, library.ErrStudentNotFound()
		}
		return user.Account{}, err
	}
	for _, m := range page.Students {
		if m.StudentNumber != "" && strings.EqualFold(m.StudentNumber, number) {
			return m, nil
		}
	}
	return user.Account{}, library.ErrStudentNotFound()
}

// Item is what a kiosk shows of a copy.
type Item struct {
	collection.CopyLookup
	// Borrower is the student the copy is lent to, when it is.
	Borrower user.Account
}

// Item finds a copy of the kiosk's school by its code.
// Errors: NotFound "copy_not_found".
func (s *SelfCheck) Item(ctx context.Context, k Session, code string) (Item, error) {
	ctx = k.Context(ctx)
	code = strings.TrimSpace(code)
	if code == "" || len(code) > library.MaxScanCodeSize {
		return Item{}, library.ErrCopyNotFound()
	}
	found, err := s.d.Holdings.CopyByCode(ctx, k.School.ID, code)
	if err != nil {
		return Item{}, err
	}
	return Item{CopyLookup: found}, nil
}

// CheckOut lends the copy with code to the student with the card number,
// under the desk's rules: blocks, holds, loan limits, the calendar. A copy
// already lent to the same student is renewed instead when renew is true
// (the kiosk's renewal policy), as SIP2 asks.
// Errors: as Patron, Item, circulation.CreateLoan and RenewLoan;
// Conflict "copy_unavailable" for a copy lent to someone else.
func (s *SelfCheck) CheckOut(ctx context.Context, k Session, number, code string, renew bool) (circulation.LoanView, Item, error) {
	it, err := s.Item(ctx, k, code)
	if err != nil {
		return circulation.LoanView{}, Item{}, err
	}
	ctx = k.Context(ctx)
	st, err := s.student(ctx, k.School.ID, number)
	if err != nil {
		return circulation.LoanView{}, it, err
	}
	if it.Loan != nil {
		if it.Loan.Loan.StudentID != st.ID {
			return circulation.LoanView{}, it, errs.E(errs.Conflict, errs.CodeCopyUnavailable, "This copy is on loan to someone else.")
		}
		if !renew {
			return circulation.LoanView{}, it, errs.E(errs.Conflict, errs.CodeCopyUnavailable, "You already have this copy.")
		}
		v, err := s.d.Circulation.RenewLoan(ctx, it.Loan.Loan.ID, nil)
		return v, it, err
	}
	v, err := s.d.Circulation.CreateLoan(ctx, circulation.LoanInput{SchoolID: k.School.ID, BookID: it.Book.ID, CopyID: it.Copy.ID, StudentID: st.ID})
	return v, it, err
}

// CheckIn returns the copy with code. The loan answered says whether the
// copy is now put aside for a hold (PutAside), which the kiosk tells the
// student to hand to the desk.
// Errors: as Item and circulation.ReturnLoan; Conflict "loan_not_active"
// for a copy that is not on loan.
func (s *SelfCheck) CheckIn(ctx context.Context, k Session, code string) (circulation.LoanView, Item, error) {
	it, err := s.Item(ctx, k, code)
	if err != nil {
		return circulation.LoanView{}, Item{}, err
	}
	if it.Loan == nil {
		return circulation.LoanView{}, it, errs.E(errs.Conflict, errs.CodeLoanNotActive, "This copy is not on loan.")
	}
	v, err := s.d.Circulation.ReturnLoan(k.Context(ctx), it.Loan.Loan.ID)
	return v, it, err
}

// Renew renews the student's loan of the copy with code.
// Errors: as Patron, Item and circulation.RenewLoan; NotFound
// "loan_not_found" when the student does not have the copy.
func (s *SelfCheck) Renew(ctx context.Context, k Session, number, code string) (circulation.LoanView, Item, error) {
	it, err := s.Item(ctx, k, code)
	if err != nil {
		return circulation.LoanView{}, Item{}, err
	}
	ctx = k.Context(ctx)
	st, err := s.student(ctx, k.School.ID, number)
	if err != nil {
		return circulation.LoanView{}, it, err
	}
	if it.Loan == nil || it.Loan.Loan.StudentID != st.ID {
		return circulation.LoanView{}, it, errs.E(errs.NotFound, errs.CodeLoanNotFound, "You do not have this copy on loan.")
	}
	v, err := s.d.Circulation.RenewLoan(ctx, it.Loan.Loan.ID, nil)
	return v, it, err
}

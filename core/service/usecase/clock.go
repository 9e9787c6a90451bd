package usecase

import (
	"sync"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// clock gives the library's use cases the time and fresh ids; one value is
// shared by all of them so a test sets both once (SetClock), even while a
// background sweep of the service reads them.
type Clock struct {
	mu  sync.RWMutex
	now func() time.Time
	id  func() string
}

func NewClock(now func() time.Time, newID func() string) *Clock { return &Clock{now: now, id: newID} }

func (c *Clock) Now() time.Time {
	c.mu.RLock()
	now := c.now
	c.mu.RUnlock()
	return now()
}

func (c *Clock) NewID() string {
	c.mu.RLock()
	id := c.id
	c.mu.RUnlock()
	return id()
}

// todayAt is now in the school's time zone: circulation counts dates (due
// dates, overdue, renewals) by the school's calendar day, not the server's.
func (c *Clock) TodayAt(school library.School) time.Time { return school.Today(c.Now()) }

// setClock replaces the time and the id generator of c; a nil one stays.
func SetClock(c *Clock, now func() time.Time, newID func() string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now != nil {
		c.now = now
	}
	if newID != nil {
		c.id = newID
	}
}

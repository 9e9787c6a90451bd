package usecase

import "time"

// undoTimeout bounds the clean-up of a refused or interrupted write, which
// runs after the request's own deadline may have passed.
const UndoTimeout = 10 * time.Second

package usecase

import (
	"fmt"
	"reflect"
)

// mustHave panics, naming the constructor and the field, when a field of
// deps is nil: a use case built without one of its ports is a wiring bug
// that must stop the service at start, not fail its first request. Fields
// tagged `deps:"optional"` may be nil; struct fields are checked in turn.
func MustHave(constructor string, deps any) {
	if field := missingDep(reflect.ValueOf(deps)); field != "" {
		panic(fmt.Sprintf("%s: nil %s", constructor, field))
	}
}

func missingDep(v reflect.Value) string {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Tag.Get("deps") == "optional" {
			continue
		}
		switch fv.Kind() {
		case reflect.Struct:
			if inner := missingDep(fv); inner != "" {
				return f.Name + "." + inner
			}
		case reflect.Interface, reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Slice:
			if fv.IsNil() {
				return f.Name
			}
		}
	}
	return ""
}

-- The audit log of staff and admin actions. Rows are only inserted, and
-- deleted oldest first by the retention sweep; no statement updates one.
-- changes is a JSON array of {"field", "before", "after"}. Each way the
-- desk filters the log has its index, in (at, id) order within it, so a
-- page is one range read backwards: a school's entries, by person, by
-- action, and the same across every school (admins), which the sweep
-- reads oldest first. The entries about a person are found on the
-- partial subject index when their account is deleted, to take their
-- details out.
CREATE TABLE audit_log (
    id          TEXT    NOT NULL PRIMARY KEY,
    school_id   TEXT    NOT NULL,
    at          INTEGER NOT NULL,
    actor_id    TEXT    NOT NULL,
    actor_email TEXT    NOT NULL,
    actor_role  TEXT    NOT NULL,
    address     TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    target      TEXT    NOT NULL,
    subject_id  TEXT    NOT NULL,
    summary     TEXT    NOT NULL,
    changes     TEXT    NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX audit_log_by_school ON audit_log (school_id, at, id);
CREATE INDEX audit_log_by_school_actor ON audit_log (school_id, actor_email, at, id);
CREATE INDEX audit_log_by_school_action ON audit_log (school_id, action, at, id);
CREATE INDEX audit_log_by_time ON audit_log (at, id);
CREATE INDEX audit_log_by_actor ON audit_log (actor_email, at, id);
CREATE INDEX audit_log_by_action ON audit_log (action, at, id);
CREATE INDEX audit_log_by_subject ON audit_log (subject_id) WHERE subject_id <> '';

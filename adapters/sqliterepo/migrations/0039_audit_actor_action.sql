-- A person's entries of one action, in the pages' order: without these
-- the page read every entry of the person and kept those of the action.
CREATE INDEX audit_log_by_school_actor_action ON audit_log (school_id, actor_email, action, at, id);
CREATE INDEX audit_log_by_actor_action ON audit_log (actor_email, action, at, id);

-- When each periodic task (expired-row cleanup, blob sweep) last ran, across every instance: an
-- instance runs a task only when it claims the row (the last run is at least an interval old), so
-- several instances run it once per interval between them.
CREATE TABLE periodic_task_runs (
    name text PRIMARY KEY,
    last_run_at timestamptz NOT NULL
);

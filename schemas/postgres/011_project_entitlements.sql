-- Entitlements an operator grants a project (`earshot projects grant archive --project P`).
CREATE TABLE project_entitlements (
  project_id text NOT NULL REFERENCES projects (id),
  entitlement text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, entitlement)
);

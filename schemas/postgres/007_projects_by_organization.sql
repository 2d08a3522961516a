-- An organization's projects are listed in id order, a page after a cursor id. Prepared, that list
-- would otherwise run on a generic plan that walks the primary key across every organization's
-- projects, filtering out the others: its cost grows with the whole table, not with one page.
CREATE INDEX projects_organization_id_id ON projects (organization_id, id);

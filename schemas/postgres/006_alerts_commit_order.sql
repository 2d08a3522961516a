-- The processors' alert index (projections/alerts/alert-index.ts) polls for changed alerts. A
-- `version` taken from a sequence is not commit order: a transaction that took version 10 can
-- commit after one that took 11 was already read, in another process. So every write also
-- stamps the id of its transaction, and each poll re-reads the rows written by any transaction
-- that had not finished at the previous poll (`written_xid >= ` that poll's snapshot xmin): a
-- late commit is picked up on the next poll, however many versions were taken meanwhile.
ALTER TABLE alerts ADD COLUMN written_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX alerts_written_xid ON alerts (written_xid);

CREATE FUNCTION alerts_stamp_written_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.written_xid := pg_current_xact_id();
  RETURN NEW;
END
$$;

CREATE TRIGGER alerts_stamp_written_xid BEFORE INSERT OR UPDATE ON alerts
  FOR EACH ROW EXECUTE FUNCTION alerts_stamp_written_xid();

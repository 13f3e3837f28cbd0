-- 0015: the attempts journal leaves the request's path. Before an HTTP
-- attempt is sent, the runner appends it to a file next to the database
-- (<db>-attempts-<run id>, one line per attempt; a write the operating
-- system holds survives the process's kill) instead of inserting an
-- llm_attempts row in a transaction each request waited for. The attempt
-- is counted (llm.<role>.attempts) when its outcome is stored: the
-- transaction that caches its reply, or records its failure, inserts
-- (run, sequence number) here and counts only the rows it inserted, so an
-- attempt settled twice (by the cache's write-behind and by its unit's
-- commit) is counted once. A dead run's attempts that are neither here nor
-- in llm_attempts were in flight at the kill: the next run inserts them
-- into llm_attempts as lost and counts them (attempts and lost_in_flight).
-- A run that ends with every attempt settled removes its file, then its
-- rows here.
CREATE TABLE llm_settled (
    run_id TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

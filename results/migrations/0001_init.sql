-- 0001: the whole results schema. Times are unix milliseconds (UTC).
-- Result rows link to the unit (fingerprint) that produced them; runs reach
-- units through run_units, so a run sees units an earlier run produced.

CREATE TABLE runs (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL DEFAULT '',
    parent_id    TEXT REFERENCES runs(id) ON DELETE SET NULL,
    config_name  TEXT NOT NULL DEFAULT '',
    config_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config_json)),
    axes_json    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(axes_json)),
    command      TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT 'running',
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    summary_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(summary_json))
);
CREATE INDEX runs_by_parent ON runs(parent_id);
CREATE INDEX runs_by_started ON runs(started_at);
CREATE INDEX runs_by_name ON runs(name);

CREATE TABLE stages (
    run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    kind         TEXT NOT NULL,
    fingerprint  TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT 'pending',
    units_total  INTEGER NOT NULL DEFAULT 0,
    units_done   INTEGER NOT NULL DEFAULT 0,
    units_cached INTEGER NOT NULL DEFAULT 0,
    units_failed INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    started_at   INTEGER,
    finished_at  INTEGER,
    PRIMARY KEY (run_id, key)
);

CREATE TABLE units (
    fingerprint TEXT PRIMARY KEY,
    kind        TEXT NOT NULL DEFAULT '',
    stage_key   TEXT NOT NULL DEFAULT '',
    run_id      TEXT REFERENCES runs(id) ON DELETE SET NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    done_at     INTEGER
);
CREATE INDEX units_by_run_stage ON units(run_id, stage_key);

CREATE TABLE run_units (
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL REFERENCES units(fingerprint),
    stage_key   TEXT NOT NULL DEFAULT '',
    cached      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, fingerprint)
) WITHOUT ROWID;
CREATE INDEX run_units_by_fp ON run_units(fingerprint);

CREATE TABLE counters (
    run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage_key TEXT NOT NULL DEFAULT '',
    name      TEXT NOT NULL,
    value     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, stage_key, name)
) WITHOUT ROWID;

CREATE TABLE llm_calls (
    id                INTEGER PRIMARY KEY,
    key               TEXT UNIQUE,
    unit_fp           TEXT REFERENCES units(fingerprint),
    run_id            TEXT REFERENCES runs(id) ON DELETE SET NULL,
    role              TEXT NOT NULL DEFAULT '',
    model_id          TEXT NOT NULL DEFAULT '',
    url               TEXT NOT NULL DEFAULT '',
    request_json      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(request_json)),
    response_json     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(response_json)),
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms        REAL NOT NULL DEFAULT 0,
    attempts          INTEGER NOT NULL DEFAULT 0,
    cached            INTEGER NOT NULL DEFAULT 0,
    error             TEXT NOT NULL DEFAULT '',
    created_at        INTEGER NOT NULL
);
CREATE INDEX llm_calls_by_unit ON llm_calls(unit_fp);

CREATE TABLE episodes (
    id                 INTEGER PRIMARY KEY,
    unit_fp            TEXT NOT NULL REFERENCES units(fingerprint),
    run_id             TEXT REFERENCES runs(id) ON DELETE SET NULL,
    idx                INTEGER NOT NULL DEFAULT 0,
    conv_id            TEXT NOT NULL DEFAULT '',
    id_field           TEXT NOT NULL DEFAULT 'conv_id',
    id_raw             TEXT,
    sample_idx         INTEGER NOT NULL DEFAULT 0,
    system             TEXT NOT NULL DEFAULT '',
    dataset            TEXT NOT NULL DEFAULT '',
    valence            TEXT NOT NULL DEFAULT '',
    domain             TEXT NOT NULL DEFAULT '',
    meeting            TEXT,
    start_idx          INTEGER,
    mode               TEXT NOT NULL DEFAULT '',
    metadata_json      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata_json)),
    agents_spoken      TEXT CHECK (agents_spoken IS NULL OR json_valid(agents_spoken)),
    initial_emotion    TEXT,
    final_emotion      TEXT,
    emotion_trajectory TEXT CHECK (emotion_trajectory IS NULL OR json_valid(emotion_trajectory)),
    user_big_five      TEXT CHECK (user_big_five IS NULL OR json_valid(user_big_five)),
    extra_json         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra_json)),
    created_at         INTEGER NOT NULL,
    UNIQUE (unit_fp, idx)
);
CREATE INDEX episodes_by_run_system_dataset ON episodes(run_id, system, dataset);
CREATE INDEX episodes_by_system_dataset ON episodes(system, dataset);
CREATE INDEX episodes_by_conv ON episodes(conv_id, id);

CREATE TABLE turns (
    id               INTEGER PRIMARY KEY,
    episode_id       INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    turn_idx         INTEGER NOT NULL,
    round_id         INTEGER,
    turn_type        TEXT NOT NULL DEFAULT '',
    agent_name       TEXT NOT NULL DEFAULT '',
    response         TEXT NOT NULL DEFAULT '',
    directive_json   TEXT CHECK (directive_json IS NULL OR json_valid(directive_json)),
    directive_output TEXT,
    extra_json       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra_json)),
    UNIQUE (episode_id, turn_idx)
);

CREATE TABLE candidates (
    id         INTEGER PRIMARY KEY,
    unit_fp    TEXT NOT NULL REFERENCES units(fingerprint),
    run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
    kind       TEXT NOT NULL DEFAULT 'response',
    context_id TEXT NOT NULL DEFAULT '',
    persona    TEXT NOT NULL DEFAULT '',
    sample_idx INTEGER NOT NULL DEFAULT 0,
    prompt     TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL DEFAULT '',
    raw        TEXT NOT NULL DEFAULT '',
    model_id   TEXT NOT NULL DEFAULT '',
    meta_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta_json)),
    created_at INTEGER NOT NULL,
    UNIQUE (unit_fp, sample_idx)
);
CREATE INDEX candidates_by_context ON candidates(context_id, persona);

CREATE TABLE judgments (
    id             INTEGER PRIMARY KEY,
    unit_fp        TEXT NOT NULL REFERENCES units(fingerprint),
    run_id         TEXT REFERENCES runs(id) ON DELETE SET NULL,
    judge          TEXT NOT NULL DEFAULT '',
    rubric_version TEXT NOT NULL DEFAULT '',
    criterion      TEXT NOT NULL,
    agent          TEXT NOT NULL DEFAULT '',
    score          REAL NOT NULL,
    scale_min      REAL NOT NULL DEFAULT 1,
    scale_max      REAL NOT NULL DEFAULT 5,
    candidate_id   INTEGER REFERENCES candidates(id) ON DELETE CASCADE,
    turn_id        INTEGER REFERENCES turns(id) ON DELETE CASCADE,
    episode_id     INTEGER REFERENCES episodes(id) ON DELETE CASCADE,
    rationale      TEXT NOT NULL DEFAULT '',
    raw            TEXT NOT NULL DEFAULT '',
    llm_call_key   TEXT,
    created_at     INTEGER NOT NULL,
    CHECK ((candidate_id IS NOT NULL) + (turn_id IS NOT NULL) + (episode_id IS NOT NULL) = 1)
);
CREATE INDEX judgments_by_candidate ON judgments(candidate_id) WHERE candidate_id IS NOT NULL;
CREATE INDEX judgments_by_turn ON judgments(turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX judgments_by_episode ON judgments(episode_id) WHERE episode_id IS NOT NULL;
CREATE INDEX judgments_by_unit ON judgments(unit_fp);

CREATE TABLE comparisons (
    id           INTEGER PRIMARY KEY,
    unit_fp      TEXT NOT NULL REFERENCES units(fingerprint),
    run_id       TEXT REFERENCES runs(id) ON DELETE SET NULL,
    judge        TEXT NOT NULL DEFAULT '',
    criterion    TEXT NOT NULL DEFAULT '',
    context_id   TEXT NOT NULL DEFAULT '',
    systems_json TEXT NOT NULL CHECK (json_valid(systems_json)),
    episodes_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(episodes_json)),
    choice       TEXT NOT NULL,
    rationale    TEXT NOT NULL DEFAULT '',
    raw          TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL
);
CREATE INDEX comparisons_by_unit ON comparisons(unit_fp);

CREATE TABLE human_preferences (
    id            INTEGER PRIMARY KEY,
    run_id        TEXT REFERENCES runs(id) ON DELETE SET NULL,
    rater_id      TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    context_id    TEXT NOT NULL DEFAULT '',
    systems_json  TEXT NOT NULL CHECK (json_valid(systems_json)),
    episodes_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(episodes_json)),
    choice        TEXT NOT NULL,
    note          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX human_preferences_by_run ON human_preferences(run_id);

CREATE TABLE metrics (
    id         INTEGER PRIMARY KEY,
    unit_fp    TEXT NOT NULL REFERENCES units(fingerprint),
    run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
    episode_id INTEGER REFERENCES episodes(id) ON DELETE CASCADE,
    system     TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL,
    value      REAL NOT NULL,
    meta_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta_json)),
    created_at INTEGER NOT NULL
);
CREATE INDEX metrics_by_episode ON metrics(episode_id) WHERE episode_id IS NOT NULL;
CREATE INDEX metrics_by_unit ON metrics(unit_fp);

CREATE TABLE pairs (
    id             INTEGER PRIMARY KEY,
    unit_fp        TEXT NOT NULL REFERENCES units(fingerprint),
    run_id         TEXT REFERENCES runs(id) ON DELETE SET NULL,
    context_id     TEXT NOT NULL DEFAULT '',
    persona        TEXT NOT NULL DEFAULT '',
    chosen_id      INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    rejected_id    INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    chosen_score   REAL NOT NULL DEFAULT 0,
    rejected_score REAL NOT NULL DEFAULT 0,
    margin         REAL NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    UNIQUE (unit_fp, chosen_id, rejected_id),
    CHECK (chosen_id <> rejected_id)
);
CREATE INDEX pairs_by_chosen ON pairs(chosen_id);
CREATE INDEX pairs_by_rejected ON pairs(rejected_id);

CREATE TABLE training_steps (
    id         INTEGER PRIMARY KEY,
    unit_fp    TEXT NOT NULL REFERENCES units(fingerprint),
    run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
    stage_key  TEXT NOT NULL DEFAULT '',
    step       INTEGER NOT NULL,
    epoch      REAL NOT NULL DEFAULT 0,
    loss       REAL,
    reward     REAL,
    kl         REAL,
    lr         REAL,
    grad_norm  REAL,
    values_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(values_json)),
    created_at INTEGER NOT NULL,
    UNIQUE (unit_fp, step)
);

CREATE TABLE artifacts (
    id         INTEGER PRIMARY KEY,
    unit_fp    TEXT NOT NULL REFERENCES units(fingerprint),
    run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
    kind       TEXT NOT NULL DEFAULT '',
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    bytes      INTEGER NOT NULL DEFAULT 0,
    meta_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta_json)),
    created_at INTEGER NOT NULL,
    UNIQUE (unit_fp, path)
);

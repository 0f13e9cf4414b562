/**
 * Versioned schema migrations. Each entry runs once, in order, inside a transaction;
 * PRAGMA user_version records how far a database file has come. Append new versions,
 * never edit a released one: existing study databases must migrate forward unchanged.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * The migration rebuilds tables that others reference (SQLite's "make other kinds of table
   * schema changes" procedure): foreign keys are switched off around its transaction and every
   * reference is checked before it commits.
   */
  rebuildsTables?: true;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'core schema',
    sql: `
      -- Installation facts (e.g. the secret that keys opaque clip ids).
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      -- One audio file on disk. id is opaque (keyed hash), never derived visibly from the path.
      CREATE TABLE clips (
        id            TEXT PRIMARY KEY,
        corpus        TEXT NOT NULL,           -- ravdess | vctk | metaset | demo | ...
        root          TEXT NOT NULL,           -- absolute directory the import started from
        path          TEXT NOT NULL,           -- path relative to root
        abs_path      TEXT NOT NULL UNIQUE,
        format        TEXT NOT NULL,           -- wav | flac
        codec         TEXT NOT NULL,           -- pcm_s16le | pcm_f32le | flac ...
        duration      REAL NOT NULL,           -- seconds
        sample_rate   INTEGER NOT NULL,
        channels      INTEGER NOT NULL,
        bytes         INTEGER NOT NULL,
        mtime_ms      REAL NOT NULL,
        sha256        TEXT NOT NULL,
        loudness_dbfs REAL,                    -- RMS dBFS over all channels
        peaks         TEXT NOT NULL,           -- JSON: {"resolution": n, "data": [min,max,min,max,...]} in [-1,1]
        labels        TEXT NOT NULL DEFAULT '{}', -- JSON: parsed corpus labels (never sent to listeners)
        imported_at   TEXT NOT NULL
      );
      CREATE INDEX clips_corpus ON clips(corpus);

      -- A spoken utterance that systems caption. id is the corpus-qualified identity
      -- (metaset:<source>/<relative_audio_path>, ravdess:<file stem>, vctk:<pNNN_NNN>); analysts
      -- see it in exports, listeners never do.
      CREATE TABLE utterances (
        id          TEXT PRIMARY KEY,
        corpus      TEXT NOT NULL,
        clip_id     TEXT REFERENCES clips(id),
        transcript  TEXT,
        labels      TEXT NOT NULL DEFAULT '{}'
      );

      -- A system's caption for an utterance (oracle captions use system 'oracle').
      CREATE TABLE captions (
        utterance_id TEXT NOT NULL REFERENCES utterances(id),
        system       TEXT NOT NULL,
        task         TEXT NOT NULL DEFAULT 'holistic_creative_synthesis',
        text         TEXT NOT NULL,
        PRIMARY KEY (utterance_id, system, task)
      );

      CREATE TABLE judge_scores (
        utterance_id TEXT NOT NULL REFERENCES utterances(id),
        system       TEXT NOT NULL,
        judge        TEXT NOT NULL,
        run          TEXT NOT NULL,
        score        REAL NOT NULL,
        PRIMARY KEY (utterance_id, system, judge, run)
      );

      CREATE TABLE studies (
        id          TEXT PRIMARY KEY,          -- the study's name (folder name under studies/)
        title       TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','open','paused','closed')),
        definition  TEXT NOT NULL,             -- JSON of the validated study definition
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );

      -- One trial's content. Captions are copied in so later manifest edits cannot change
      -- what listeners already judged. kind: pair | attention | practice.
      CREATE TABLE items (
        id           TEXT PRIMARY KEY,         -- opaque
        study_id     TEXT NOT NULL REFERENCES studies(id),
        seq          INTEGER NOT NULL,         -- order in the study definition
        kind         TEXT NOT NULL CHECK (kind IN ('pair','attention','practice')),
        utterance_id TEXT NOT NULL,
        clip_id      TEXT NOT NULL REFERENCES clips(id),
        system_a     TEXT NOT NULL,
        system_b     TEXT NOT NULL,
        caption_a    TEXT NOT NULL,
        caption_b    TEXT NOT NULL,
        expected     TEXT CHECK (expected IN ('a','b')),
        UNIQUE (study_id, seq)
      );
      CREATE INDEX items_study ON items(study_id);

      -- A listener is one session of one study, addressed by an unguessable token.
      CREATE TABLE listeners (
        id              TEXT PRIMARY KEY,
        study_id        TEXT NOT NULL REFERENCES studies(id),
        token_hash      TEXT NOT NULL UNIQUE,  -- sha256 of the session token
        external        TEXT NOT NULL DEFAULT '{}', -- JSON of recorded link parameters
        user_agent      TEXT,
        screening       TEXT,                  -- JSON outcome of headphone screening
        created_at      TEXT NOT NULL,
        completed_at    TEXT,
        completion_code TEXT
      );
      CREATE INDEX listeners_study ON listeners(study_id);

      -- The trials handed to a listener, in the order they see them; first = which of the
      -- item's captions (a|b) is shown first (left/top).
      CREATE TABLE assignments (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        position    INTEGER NOT NULL,
        item_id     TEXT NOT NULL REFERENCES items(id),
        first       TEXT NOT NULL CHECK (first IN ('a','b')),
        assigned_at TEXT NOT NULL,
        PRIMARY KEY (listener_id, position),
        UNIQUE (listener_id, item_id)
      );
      CREATE INDEX assignments_item ON assignments(item_id);

      CREATE TABLE votes (
        id               TEXT PRIMARY KEY,     -- client-generated vote id (idempotency key)
        listener_id      TEXT NOT NULL REFERENCES listeners(id),
        item_id          TEXT NOT NULL REFERENCES items(id),
        position         INTEGER NOT NULL,
        first            TEXT NOT NULL CHECK (first IN ('a','b')),
        chosen           TEXT NOT NULL CHECK (chosen IN ('a','b')),
        play_count       INTEGER NOT NULL,
        seconds_listened REAL NOT NULL,
        heard_to_end     INTEGER NOT NULL CHECK (heard_to_end IN (0,1)),
        hidden_ms        INTEGER NOT NULL,
        response_ms      INTEGER NOT NULL,
        client_ts        TEXT NOT NULL,
        server_ts        TEXT NOT NULL,
        UNIQUE (listener_id, item_id)
      );
      CREATE INDEX votes_item ON votes(item_id);

      -- Researcher / analyst access tokens: salted scrypt hashes only.
      CREATE TABLE access_tokens (
        id          TEXT PRIMARY KEY,          -- public part of the token, used to look it up
        role        TEXT NOT NULL CHECK (role IN ('researcher','analyst')),
        salt        TEXT NOT NULL,
        hash        TEXT NOT NULL,
        label       TEXT,
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
      );
    `,
  },
  {
    version: 2,
    name: 'caption file paths',
    sql: `
      -- The wav_path each caption file used for an utterance, so judge outputs (which name clips only by
      -- that path) can be joined back to the utterance they scored.
      CREATE TABLE utterance_paths (
        wav_path     TEXT PRIMARY KEY,
        utterance_id TEXT NOT NULL REFERENCES utterances(id)
      );
      CREATE INDEX utterances_clip ON utterances(clip_id);
    `,
  },
  {
    version: 3,
    name: 'study judge scores',
    sql: `
      -- Each study's own copy of the judge scores of the captions it shows, taken from the judge
      -- files it declares when it is built. judge_scores stays the manifest's (last import wins);
      -- the export reads this, so another study's judge files cannot change a study's data.
      CREATE TABLE study_judge_scores (
        study_id     TEXT NOT NULL REFERENCES studies(id),
        utterance_id TEXT NOT NULL,
        system       TEXT NOT NULL,
        judge        TEXT NOT NULL,
        run          TEXT NOT NULL,
        score        REAL NOT NULL,
        PRIMARY KEY (study_id, utterance_id, system, judge, run)
      );
      -- Studies built before keep exporting what they exported: the manifest scores of their captions.
      INSERT OR IGNORE INTO study_judge_scores (study_id, utterance_id, system, judge, run, score)
        SELECT DISTINCT i.study_id, j.utterance_id, j.system, j.judge, j.run, j.score
          FROM items i JOIN judge_scores j ON j.utterance_id = i.utterance_id AND j.system IN (i.system_a, i.system_b)
         WHERE i.kind != 'practice';
    `,
  },
  {
    version: 5,
    name: 'sessions held by answers, one per participant',
    sql: `
      -- The study's participant id (PROLIFIC_PID, workerId, ...) of a session: one session per participant and study.
      ALTER TABLE listeners ADD COLUMN participant TEXT;
      CREATE INDEX listeners_participant ON listeners(study_id, participant) WHERE participant IS NOT NULL;
      -- A keyed hash of the client's network (IPv4 address or IPv6 /64), never the address itself.
      ALTER TABLE listeners ADD COLUMN client_key TEXT;
      CREATE INDEX listeners_client ON listeners(study_id, client_key) WHERE client_key IS NOT NULL;
      -- When the session's trials began to hold their items before its first answer; NULL: they hold only once it answers.
      ALTER TABLE listeners ADD COLUMN reserved_at TEXT;
      UPDATE listeners SET reserved_at = created_at;
      UPDATE listeners SET participant = json_extract(external, '$."' || (
        SELECT j.value FROM studies s, json_each(s.definition, '$.linkParameters') j
         WHERE s.id = listeners.study_id AND j.value IN ('PROLIFIC_PID', 'workerId', 'participantId', 'PARTICIPANT_ID')
         ORDER BY j.key LIMIT 1) || '"');

      -- Further tokens of a session resumed in another browser (its first token stays in listeners.token_hash).
      CREATE TABLE session_tokens (
        token_hash  TEXT PRIMARY KEY,
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        created_at  TEXT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'served audio copies',
    sql: `
      -- What a study's listeners hear of a clip: a normalised copy in <data>/served-audio/<file>
      -- (docs/blinding.md). id is what listeners see; it is keyed by the installation secret, the
      -- study and the copy's content, so it says nothing about the corpus file and changes with the copy.
      CREATE TABLE served_clips (
        study_id        TEXT NOT NULL REFERENCES studies(id),
        clip_id         TEXT NOT NULL REFERENCES clips(id),
        id              TEXT NOT NULL UNIQUE,
        file            TEXT NOT NULL,       -- name under <data>/served-audio (the copy's sha256 + .wav)
        settings        TEXT NOT NULL,       -- JSON of what shaped the copy (format, loudness target or off)
        source_sha256   TEXT NOT NULL,       -- the manifest's facts of the corpus file the copy was made from
        source_bytes    INTEGER NOT NULL,
        source_mtime_ms REAL NOT NULL,
        gain_db         REAL NOT NULL,       -- applied gain; 0 when loudness is off
        peak_limited    INTEGER NOT NULL CHECK (peak_limited IN (0,1)),
        loudness_dbfs   REAL,                -- RMS dBFS of the copy; null for digital silence
        duration        REAL NOT NULL,
        bytes           INTEGER NOT NULL,
        tag             TEXT NOT NULL,       -- keyed hash of the copy: its ETag and Last-Modified
        peaks           TEXT NOT NULL,       -- waveform of the copy, at the applied gain
        made_at         TEXT NOT NULL,
        PRIMARY KEY (study_id, clip_id)
      );
      CREATE INDEX served_clips_clip ON served_clips(clip_id);
    `,
  },
  {
    version: 8,
    name: 'trial problems',
    sql: `
      -- A trial the listener could not answer because its clip would not load or play, reported before
      -- moving on. Never a vote: exports and the analysis read votes only.
      CREATE TABLE trial_problems (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        position    INTEGER NOT NULL,
        item_id     TEXT NOT NULL REFERENCES items(id),
        problem     TEXT NOT NULL CHECK (problem IN ('load_failed','play_failed')),
        detail      TEXT,
        client_ts   TEXT NOT NULL,
        server_ts   TEXT NOT NULL,
        PRIMARY KEY (listener_id, position)
      );
    `,
  },
  {
    version: 9,
    name: 'end-of-study comments',
    sql: `
      -- What a listener chose to tell the researchers when they finished (study.yaml comments: true); exported in
      -- listeners.csv. NULL: none given.
      ALTER TABLE listeners ADD COLUMN comments TEXT;
    `,
  },
  {
    version: 10,
    name: 'trial kinds',
    rebuildsTables: true,
    sql: `
      -- Items, assignments and votes stop being caption pairs only (contract/trials). An item has a
      -- trial kind; a rating item names its rated system in system_a (and its caption, if the study shows
      -- one, in caption_a) and leaves the b side empty; its expected answer is the required score.
      -- kind: the item's role, i.e. its trial kind for an ordinary item, or attention | practice.
      CREATE TABLE items_v10 (
        id           TEXT PRIMARY KEY,
        study_id     TEXT NOT NULL REFERENCES studies(id),
        seq          INTEGER NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('pair','rating','attention','practice')),
        trial_kind   TEXT NOT NULL DEFAULT 'pair' CHECK (trial_kind IN ('pair','rating')),
        utterance_id TEXT NOT NULL,
        clip_id      TEXT NOT NULL REFERENCES clips(id),
        system_a     TEXT NOT NULL,
        system_b     TEXT,
        caption_a    TEXT,
        caption_b    TEXT,
        expected     TEXT,
        UNIQUE (study_id, seq),
        CHECK (kind IN ('attention','practice') OR kind = trial_kind),
        CHECK (trial_kind != 'pair' OR (system_b IS NOT NULL AND caption_a IS NOT NULL AND caption_b IS NOT NULL
                                        AND (expected IS NULL OR expected IN ('a','b')))),
        CHECK (trial_kind != 'rating' OR (system_b IS NULL AND caption_b IS NULL
                                          AND (expected IS NULL OR expected GLOB '[1-9]')))
      );
      INSERT INTO items_v10 (id, study_id, seq, kind, trial_kind, utterance_id, clip_id, system_a, system_b, caption_a, caption_b, expected)
        SELECT id, study_id, seq, kind, 'pair', utterance_id, clip_id, system_a, system_b, caption_a, caption_b, expected FROM items;
      DROP TABLE items;
      ALTER TABLE items_v10 RENAME TO items;
      CREATE INDEX items_study ON items(study_id);

      -- first: the caption shown first for a pair; NULL for kinds without an order.
      CREATE TABLE assignments_v10 (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        position    INTEGER NOT NULL,
        item_id     TEXT NOT NULL REFERENCES items(id),
        first       TEXT CHECK (first IN ('a','b')),
        assigned_at TEXT NOT NULL,
        PRIMARY KEY (listener_id, position),
        UNIQUE (listener_id, item_id)
      );
      INSERT INTO assignments_v10 SELECT listener_id, position, item_id, first, assigned_at FROM assignments;
      DROP TABLE assignments;
      ALTER TABLE assignments_v10 RENAME TO assignments;
      CREATE INDEX assignments_item ON assignments(item_id);

      -- A vote is any kind's answer: first + chosen for a pair, score for a rating (exactly one of them).
      CREATE TABLE votes_v10 (
        id               TEXT PRIMARY KEY,
        listener_id      TEXT NOT NULL REFERENCES listeners(id),
        item_id          TEXT NOT NULL REFERENCES items(id),
        position         INTEGER NOT NULL,
        first            TEXT CHECK (first IN ('a','b')),
        chosen           TEXT CHECK (chosen IN ('a','b')),
        score            INTEGER CHECK (score BETWEEN 1 AND 9),
        play_count       INTEGER NOT NULL,
        seconds_listened REAL NOT NULL,
        heard_to_end     INTEGER NOT NULL CHECK (heard_to_end IN (0,1)),
        hidden_ms        INTEGER NOT NULL,
        response_ms      INTEGER NOT NULL,
        client_ts        TEXT NOT NULL,
        server_ts        TEXT NOT NULL,
        UNIQUE (listener_id, item_id),
        CHECK ((chosen IS NOT NULL AND first IS NOT NULL AND score IS NULL) OR (chosen IS NULL AND first IS NULL AND score IS NOT NULL))
      );
      -- Votes keep their rowids: a replayed acknowledgement counts progress by rowid (server/store/votes.ts).
      INSERT INTO votes_v10 (rowid, id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened,
                             heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
        SELECT rowid, id, listener_id, item_id, position, first, chosen, NULL, play_count, seconds_listened,
               heard_to_end, hidden_ms, response_ms, client_ts, server_ts FROM votes;
      DROP TABLE votes;
      ALTER TABLE votes_v10 RENAME TO votes;
      CREATE INDEX votes_item ON votes(item_id);
    `,
  },
  {
    version: 11,
    name: 'votes found by trial',
    rebuildsTables: true,
    sql: `
      -- A vote is found by its trial, (listener_id, position), the one index it keeps besides the table's own
      -- rowid order. Each index is a page per vote that a durable commit writes and a checkpoint writes again;
      -- the vote id's (random ids: a page anywhere in the index), (listener_id, item_id)'s and item_id's were most
      -- of the vote writer's time (bench/README.md, "Round 3"). So:
      -- - id is no longer unique on its own: a vote id names one answer to one trial, and a retry is recognised
      --   at its trial (server/store/votes.ts);
      -- - the trial is the vote's parent: (listener_id, position) references the assignment, which names the
      --   listener and the item, so item_id needs no reference of its own (a reference without an index would
      --   scan every vote whenever a study's items are rebuilt);
      -- - a study's votes are reached through its listeners (listeners_study), not through an index on item_id.
      CREATE TABLE votes_v11 (
        id               TEXT NOT NULL,
        listener_id      TEXT NOT NULL,
        item_id          TEXT NOT NULL,
        position         INTEGER NOT NULL,
        first            TEXT CHECK (first IN ('a','b')),
        chosen           TEXT CHECK (chosen IN ('a','b')),
        score            INTEGER CHECK (score BETWEEN 1 AND 9),
        play_count       INTEGER NOT NULL,
        seconds_listened REAL NOT NULL,
        heard_to_end     INTEGER NOT NULL CHECK (heard_to_end IN (0,1)),
        hidden_ms        INTEGER NOT NULL,
        response_ms      INTEGER NOT NULL,
        client_ts        TEXT NOT NULL,
        server_ts        TEXT NOT NULL,
        UNIQUE (listener_id, position),
        FOREIGN KEY (listener_id, position) REFERENCES assignments (listener_id, position),
        CHECK ((chosen IS NOT NULL AND first IS NOT NULL AND score IS NULL) OR (chosen IS NULL AND first IS NULL AND score IS NOT NULL))
      );
      -- Rowids are kept: exports list votes in the order they were stored.
      INSERT INTO votes_v11 (rowid, id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened,
                             heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
        SELECT rowid, id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened,
               heard_to_end, hidden_ms, response_ms, client_ts, server_ts FROM votes;
      DROP TABLE votes;
      ALTER TABLE votes_v11 RENAME TO votes;
    `,
  },
  {
    version: 12,
    name: 'access tokens limited to named studies',
    sql: `
      -- A researcher or analyst token may reach only the studies named here (a JSON array of study ids);
      -- NULL, as every token made before, reaches every study (docs/security.md, "Per-study access").
      ALTER TABLE access_tokens ADD COLUMN studies TEXT;
    `,
  },
  {
    version: 13,
    name: 'headphone checks issued by the server',
    sql: `
      -- One attempt at a headphone check, as the server issued it: per round, which interval is the
      -- target (rounds, JSON, never sent to the browser; the browser gets each round's sound), and,
      -- once the listener answered, the answers and how many matched (scored here, not in the browser).
      CREATE TABLE screening_attempts (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        kind        TEXT NOT NULL CHECK (kind IN ('antiphase','huggins')),
        attempt     INTEGER NOT NULL CHECK (attempt >= 1),
        rounds      TEXT NOT NULL,
        issued_at   TEXT NOT NULL,
        answers     TEXT,
        correct     INTEGER,
        answered_at TEXT,
        PRIMARY KEY (listener_id, kind, attempt)
      );
    `,
  },
  {
    version: 14,
    name: 'questionnaires and trial comments',
    sql: `
      -- A listener's answers to the study's questions (study.yaml questions:), one row per question
      -- answered; answer is JSON (a choice's option, the options of a multiple choice, a number, a text).
      CREATE TABLE questionnaire_answers (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        question    TEXT NOT NULL,
        answer      TEXT NOT NULL,
        answered_at TEXT NOT NULL,
        PRIMARY KEY (listener_id, question)
      ) WITHOUT ROWID;
      -- When the listener sent the questions before / after the trials (also when every one was optional and left blank).
      ALTER TABLE listeners ADD COLUMN answered_before TEXT;
      ALTER TABLE listeners ADD COLUMN answered_after TEXT;
      -- The listener's optional comment on one trial (study.yaml trialComments: true).
      ALTER TABLE votes ADD COLUMN comment TEXT;
    `,
  },
  {
    version: 15,
    name: 'a core that knows no trial kind',
    rebuildsTables: true,
    sql: `
      -- Items, assignments and votes stop naming trial kinds (trials/README.md): an item is a list of
      -- stimuli, an assignment's order a permutation of its slots, a vote's answer a document its kind's
      -- schema checked. Nothing here says what a pair or a rating is; a new kind needs no migration.
      --
      -- stimuli: JSON list of {slot, role, clip, system, text} in the item's own order (a caption pair:
      -- slots a and b, each the clip with one system's caption; a rating: slot a; an A/B: one rendition
      -- per slot). clip_id, system_a, caption_a, system_b, caption_b read its first two stimuli: they keep
      -- round-2 SQL (analysts' queries, tests) working and are computed, never stored.
      CREATE TABLE items_v15 (
        id           TEXT PRIMARY KEY,
        study_id     TEXT NOT NULL REFERENCES studies(id),
        seq          INTEGER NOT NULL,
        kind         TEXT NOT NULL,
        trial_kind   TEXT NOT NULL,
        utterance_id TEXT NOT NULL,
        stimuli      TEXT NOT NULL CHECK (json_valid(stimuli) AND json_type(stimuli) = 'array' AND json_array_length(stimuli) >= 1),
        expected     TEXT,
        clip_id      TEXT GENERATED ALWAYS AS (json_extract(stimuli, '$[0].clip')) VIRTUAL,
        system_a     TEXT GENERATED ALWAYS AS (json_extract(stimuli, '$[0].system')) VIRTUAL,
        system_b     TEXT GENERATED ALWAYS AS (json_extract(stimuli, '$[1].system')) VIRTUAL,
        caption_a    TEXT GENERATED ALWAYS AS (json_extract(stimuli, '$[0].text')) VIRTUAL,
        caption_b    TEXT GENERATED ALWAYS AS (json_extract(stimuli, '$[1].text')) VIRTUAL,
        UNIQUE (study_id, seq),
        -- kind: the item's role, i.e. its trial kind for an ordinary item, or attention | practice.
        CHECK (kind IN ('attention','practice') OR kind = trial_kind)
      );
      INSERT INTO items_v15 (id, study_id, seq, kind, trial_kind, utterance_id, stimuli, expected)
        SELECT id, study_id, seq, kind, trial_kind, utterance_id,
               CASE WHEN system_b IS NULL
                 THEN json_array(json_object('slot', 'a', 'role', 'rated', 'clip', clip_id, 'system', system_a, 'text', caption_a))
                 ELSE json_array(json_object('slot', 'a', 'role', 'caption', 'clip', clip_id, 'system', system_a, 'text', caption_a),
                                 json_object('slot', 'b', 'role', 'caption', 'clip', clip_id, 'system', system_b, 'text', caption_b))
               END,
               expected
          FROM items;
      DROP TABLE items;
      ALTER TABLE items_v15 RENAME TO items;
      CREATE INDEX items_study ON items(study_id);

      -- slot_order: the item's slots in the order this listener meets them (JSON list), NULL for a kind
      -- that draws no order. first (computed) is the slot met first, as round 2 stored it.
      CREATE TABLE assignments_v15 (
        listener_id TEXT NOT NULL REFERENCES listeners(id),
        position    INTEGER NOT NULL,
        item_id     TEXT NOT NULL REFERENCES items(id),
        slot_order  TEXT CHECK (slot_order IS NULL OR (json_valid(slot_order) AND json_type(slot_order) = 'array')),
        assigned_at TEXT NOT NULL,
        first       TEXT GENERATED ALWAYS AS (json_extract(slot_order, '$[0]')) VIRTUAL,
        PRIMARY KEY (listener_id, position),
        UNIQUE (listener_id, item_id)
      );
      INSERT INTO assignments_v15 (listener_id, position, item_id, slot_order, assigned_at)
        SELECT listener_id, position, item_id,
               CASE first WHEN 'a' THEN '["a","b"]' WHEN 'b' THEN '["b","a"]' END, assigned_at
          FROM assignments;
      DROP TABLE assignments;
      ALTER TABLE assignments_v15 RENAME TO assignments;
      CREATE INDEX assignments_item ON assignments(item_id);

      -- answer: the kind's answer document (JSON object), checked by the kind before it is stored.
      -- listening: per stimulus heard, JSON list of {slot, plays, seconds, toEnd}; NULL when the trial had
      -- one clip, whose record is play_count, seconds_listened and heard_to_end (the trial's totals).
      -- first, chosen and score read the answer as round 2 stored it (computed, never stored).
      CREATE TABLE votes_v15 (
        id               TEXT NOT NULL,
        listener_id      TEXT NOT NULL,
        item_id          TEXT NOT NULL,
        position         INTEGER NOT NULL,
        answer           TEXT NOT NULL CHECK (json_valid(answer) AND json_type(answer) = 'object'),
        listening        TEXT CHECK (listening IS NULL OR (json_valid(listening) AND json_type(listening) = 'array')),
        play_count       INTEGER NOT NULL,
        seconds_listened REAL NOT NULL,
        heard_to_end     INTEGER NOT NULL CHECK (heard_to_end IN (0,1)),
        hidden_ms        INTEGER NOT NULL,
        response_ms      INTEGER NOT NULL,
        client_ts        TEXT NOT NULL,
        server_ts        TEXT NOT NULL,
        comment          TEXT,
        first            TEXT GENERATED ALWAYS AS (json_extract(answer, '$.first')) VIRTUAL,
        chosen           TEXT GENERATED ALWAYS AS (json_extract(answer, '$.chosen')) VIRTUAL,
        score            INTEGER GENERATED ALWAYS AS (json_extract(answer, '$.score')) VIRTUAL,
        UNIQUE (listener_id, position),
        FOREIGN KEY (listener_id, position) REFERENCES assignments (listener_id, position)
      );
      -- Rowids are kept: exports list votes in the order they were stored.
      INSERT INTO votes_v15 (rowid, id, listener_id, item_id, position, answer, listening, play_count, seconds_listened,
                             heard_to_end, hidden_ms, response_ms, client_ts, server_ts, comment)
        SELECT rowid, id, listener_id, item_id, position,
               CASE WHEN score IS NULL THEN json_object('first', first, 'chosen', chosen) ELSE json_object('score', score) END,
               NULL, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts, comment
          FROM votes;
      DROP TABLE votes;
      ALTER TABLE votes_v15 RENAME TO votes;
    `,
  },
  {
    version: 16,
    name: 'renditions: system audio of an utterance',
    sql: `
      -- System S's audio of utterance U (a TTS or conversion system's output, or a degraded copy): a clip
      -- imported like every clip (decoded, peaks, loudness, served as normalised metadata-free copies), of
      -- corpus 'rendition'. The utterance's own clip (utterances.clip_id) is untouched.
      CREATE TABLE renditions (
        utterance_id TEXT NOT NULL REFERENCES utterances(id),
        system       TEXT NOT NULL,
        clip_id      TEXT NOT NULL REFERENCES clips(id),
        PRIMARY KEY (utterance_id, system)
      ) WITHOUT ROWID;
      CREATE INDEX renditions_system ON renditions(system);
      CREATE INDEX renditions_clip ON renditions(clip_id);
    `,
  },
  {
    version: 17,
    name: 'analysis plans: frozen at opening, changes after the first vote recorded',
    sql: `
      -- The study's analysis settings as they stand (docs/analysis-plan.md): frozen when the study
      -- opens, frozen again by an edit before the first vote, and after it changed only by a recorded
      -- change. Studies opened before this migration have none (their exports carry no plan).
      CREATE TABLE analysis_plans (
        study_id  TEXT PRIMARY KEY REFERENCES studies(id),
        hash      TEXT NOT NULL,
        settings  TEXT NOT NULL,
        frozen_at TEXT NOT NULL
      );
      CREATE TABLE analysis_plan_changes (
        study_id  TEXT NOT NULL REFERENCES studies(id),
        seq       INTEGER NOT NULL,
        at        TEXT NOT NULL,
        reason    TEXT NOT NULL,
        from_hash TEXT NOT NULL,
        to_hash   TEXT NOT NULL,
        changed   TEXT NOT NULL,
        PRIMARY KEY (study_id, seq)
      );
    `,
  },
  {
    version: 18,
    name: 'served replays: a second copy of a clip a trial plays twice',
    rebuildsTables: true,
    sql: `
      -- A trial that plays one of its stimuli again as an unknown (ABX's X) plays it from a copy of its
      -- own: the variant 'replay' of a clip is byte-different from the clip's copy (variant ''), with its
      -- own id, file and validators, so the network and the cache do not tell which stimulus came back
      -- (docs/blinding.md). Every other copy is variant ''; rows are kept as they were.
      CREATE TABLE served_clips_v18 (
        study_id        TEXT NOT NULL REFERENCES studies(id),
        clip_id         TEXT NOT NULL REFERENCES clips(id),
        variant         TEXT NOT NULL DEFAULT '' CHECK (variant IN ('', 'replay')),
        id              TEXT NOT NULL UNIQUE,
        file            TEXT NOT NULL,
        settings        TEXT NOT NULL,
        source_sha256   TEXT NOT NULL,
        source_bytes    INTEGER NOT NULL,
        source_mtime_ms REAL NOT NULL,
        gain_db         REAL NOT NULL,
        peak_limited    INTEGER NOT NULL CHECK (peak_limited IN (0,1)),
        loudness_dbfs   REAL,
        duration        REAL NOT NULL,
        bytes           INTEGER NOT NULL,
        tag             TEXT NOT NULL,
        peaks           TEXT NOT NULL,
        made_at         TEXT NOT NULL,
        PRIMARY KEY (study_id, clip_id, variant)
      );
      INSERT INTO served_clips_v18 (study_id, clip_id, id, file, settings, source_sha256, source_bytes, source_mtime_ms,
                                    gain_db, peak_limited, loudness_dbfs, duration, bytes, tag, peaks, made_at)
        SELECT study_id, clip_id, id, file, settings, source_sha256, source_bytes, source_mtime_ms,
               gain_db, peak_limited, loudness_dbfs, duration, bytes, tag, peaks, made_at
          FROM served_clips;
      DROP TABLE served_clips;
      ALTER TABLE served_clips_v18 RENAME TO served_clips;
      CREATE INDEX served_clips_clip ON served_clips(clip_id);
    `,
  },
  {
    version: 19,
    name: 'adaptive design: when a trial\'s item was chosen',
    sql: `
      -- An adaptive study's scored position holds a provisional item until it is first served; then
      -- the server chooses its item from the votes so far and stamps chosen_at (studies/README.md,
      -- "Adaptive"). NULL: a provisional position, or a position of another design (chosen at start).
      ALTER TABLE assignments ADD COLUMN chosen_at TEXT;
    `,
  },
  {
    version: 20,
    name: 'a listener who left the study from its page',
    sql: `
      -- When the listener chose "Leave the study" (POST /api/session/leave): their session takes no
      -- more votes and its unanswered trials stop holding items at once (studies/README.md, "Leaving").
      ALTER TABLE listeners ADD COLUMN left_at TEXT;
    `,
  },
];

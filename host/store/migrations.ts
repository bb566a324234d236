/**
 * The lab database's schema, as numbered migrations. Each runs once, in order, inside its own
 * transaction, and `PRAGMA user_version` records the last one applied.
 *
 * A migration is frozen once released: never edit one, add the next. That is why the DDL below
 * spells out every reward-term column instead of generating them from `DA_TERMS` / `CA_TERMS`:
 * a new term needs a new migration (`ALTER TABLE episodes ADD COLUMN da_<term> REAL NOT NULL
 * DEFAULT 0`), and the SQLite store's tests fail until it exists.
 *
 * Foreign keys are enforced (the store turns them on before migrating), so a future migration
 * that rebuilds a table must follow SQLite's 12-step ALTER TABLE procedure.
 */
import type { Database } from 'better-sqlite3';

export interface Migration {
  /** 1, 2, 3, … with no gaps; becomes `PRAGMA user_version` once applied. */
  version: number;
  /** A few words for error messages and logs. */
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'matches, episodes, turns and reward terms',
    up(db) {
      db.exec(`
        CREATE TABLE matches (
          -- seq orders matches saved with the same created_at (and survives VACUUM, unlike rowid).
          seq                   INTEGER PRIMARY KEY,
          id                    TEXT NOT NULL UNIQUE,
          created_at            TEXT NOT NULL,
          seed                  INTEGER NOT NULL,
          da_spec               TEXT NOT NULL,
          ca_spec               TEXT NOT NULL,
          scenario_set          TEXT NOT NULL,
          episodes_per_scenario INTEGER NOT NULL,
          w_da                  REAL,
          fraud_rate            REAL,
          config_json           TEXT NOT NULL
        );
        CREATE INDEX matches_by_created ON matches (created_at, seq);

        CREATE TABLE match_scenarios (
          match_id        TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
          pos             INTEGER NOT NULL,
          scenario_id     TEXT NOT NULL,
          fraud_reference INTEGER NOT NULL CHECK (fraud_reference IN (0, 1)),
          episodes        INTEGER NOT NULL,
          da_wins         INTEGER NOT NULL,
          da_win_rate     REAL NOT NULL,
          PRIMARY KEY (match_id, pos),
          UNIQUE (match_id, scenario_id)
        ) WITHOUT ROWID;

        CREATE TABLE episodes (
          id              TEXT PRIMARY KEY,
          match_id        TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
          idx             INTEGER NOT NULL,
          scenario_id     TEXT NOT NULL,
          fraud_reference INTEGER NOT NULL CHECK (fraud_reference IN (0, 1)),
          seed            INTEGER NOT NULL,
          intent          TEXT NOT NULL,
          expected_tool   TEXT NOT NULL,
          routed_tool     TEXT,
          winner          TEXT NOT NULL CHECK (winner IN ('DA', 'CA')),
          end_reason      TEXT NOT NULL CHECK (end_reason IN ('end_call', 'turn_limit')),
          r_da            REAL NOT NULL,
          r_ca            REAL NOT NULL,
          da_format                  REAL NOT NULL,
          da_tool                    REAL NOT NULL,
          da_env_lookup_first        REAL NOT NULL,
          da_env_correct_tool        REAL NOT NULL,
          da_env_speak               REAL NOT NULL,
          da_env_milestone           REAL NOT NULL,
          da_env_late                REAL NOT NULL,
          da_env_judge               REAL NOT NULL,
          da_env_missed_verification REAL NOT NULL,
          da_env_missing_tool        REAL NOT NULL,
          da_end                     REAL NOT NULL,
          ca_format                  REAL NOT NULL,
          ca_realism                 REAL NOT NULL,
          ca_conceal                 REAL NOT NULL,
          ca_inv_da                  REAL NOT NULL,
          judge_score               REAL NOT NULL,
          judge_resolved            INTEGER NOT NULL CHECK (judge_resolved IN (0, 1)),
          judge_tier                INTEGER NOT NULL CHECK (judge_tier BETWEEN 1 AND 4),
          judge_hallucination       INTEGER NOT NULL CHECK (judge_hallucination IN (0, 1)),
          judge_rationale           TEXT NOT NULL,
          -- [{ "turn": n, "claim": "…" }, …]
          judge_hallucinations_json TEXT NOT NULL,
          UNIQUE (match_id, idx)
        );
        CREATE INDEX episodes_by_scenario ON episodes (scenario_id, match_id, idx);
        CREATE INDEX episodes_by_winner ON episodes (winner, match_id, idx);

        CREATE TABLE turns (
          episode_id       TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
          idx              INTEGER NOT NULL,
          role             TEXT NOT NULL CHECK (role IN ('customer', 'agent')),
          text             TEXT NOT NULL,
          action_type      TEXT CHECK (action_type IN ('speak', 'tool_call', 'end_call')),
          tool             TEXT,
          tool_args_json   TEXT,
          tool_result_json TEXT,
          parse_error      TEXT,
          PRIMARY KEY (episode_id, idx)
        );

        -- One row per (turn, term): a turn carries only the terms it earned, DA terms on agent
        -- turns and CA terms on customer turns; the turn's role says which side a term is for.
        CREATE TABLE turn_rewards (
          episode_id TEXT NOT NULL,
          turn_idx   INTEGER NOT NULL,
          term       TEXT NOT NULL,
          value      REAL NOT NULL,
          PRIMARY KEY (episode_id, turn_idx, term),
          FOREIGN KEY (episode_id, turn_idx) REFERENCES turns (episode_id, idx) ON DELETE CASCADE
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    name: 'experiments, runs, checkpoints, annotations, knob changes, experience notes',
    up(db) {
      db.exec(`
        CREATE TABLE experiments (
          id          TEXT PRIMARY KEY,
          name        TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          created_at  TEXT NOT NULL,
          config_json TEXT NOT NULL
        );

        -- One co-evolution run. snapshot_json is the loop machine's persisted xstate snapshot,
        -- written at every phase boundary so a killed run resumes where it stopped.
        CREATE TABLE runs (
          id            TEXT PRIMARY KEY,
          experiment_id TEXT REFERENCES experiments (id) ON DELETE CASCADE,
          created_at    TEXT NOT NULL,
          updated_at    TEXT NOT NULL,
          status        TEXT NOT NULL
                        CHECK (status IN ('created', 'running', 'paused', 'finished', 'failed')),
          seed          INTEGER NOT NULL,
          config_json   TEXT NOT NULL,
          snapshot_json TEXT,
          error         TEXT
        );
        CREATE INDEX runs_by_experiment ON runs (experiment_id, created_at);

        -- Policy weights and optimiser state. parent_id / run_id / generation / source give the
        -- lineage (DA2 was trained from DA1 in generation 2 of run R by the isolation gym).
        CREATE TABLE checkpoints (
          id           TEXT PRIMARY KEY,
          -- What a policy SPEC names, e.g. 'DA2'.
          name         TEXT NOT NULL UNIQUE,
          role         TEXT NOT NULL CHECK (role IN ('DA', 'CA')),
          created_at   TEXT NOT NULL,
          run_id       TEXT REFERENCES runs (id) ON DELETE SET NULL,
          parent_id    TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
          generation   INTEGER NOT NULL,
          step         INTEGER NOT NULL DEFAULT 0,
          -- How it was made: bootstrap, gym, bilateral, import, …
          source       TEXT NOT NULL,
          -- Architecture and feature encoding, enough to rebuild the model around the weights.
          model_json   TEXT NOT NULL,
          weights      BLOB NOT NULL,
          optimiser    BLOB,
          metrics_json TEXT
        );
        CREATE INDEX checkpoints_by_role ON checkpoints (role, created_at);
        CREATE INDEX checkpoints_by_run ON checkpoints (run_id, generation);
        CREATE INDEX checkpoints_by_parent ON checkpoints (parent_id);

        -- A person's label on an episode, or on one turn of it (tactics, judge disagreements).
        CREATE TABLE annotations (
          id         INTEGER PRIMARY KEY,
          episode_id TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
          turn_idx   INTEGER,
          created_at TEXT NOT NULL,
          author     TEXT NOT NULL,
          label      TEXT NOT NULL,
          note       TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX annotations_by_episode ON annotations (episode_id, turn_idx);
        CREATE INDEX annotations_by_label ON annotations (label);

        -- Every write to a training-system knob (EAU), by a person or an automatic meta-agent.
        CREATE TABLE knob_changes (
          id             INTEGER PRIMARY KEY,
          run_id         TEXT REFERENCES runs (id) ON DELETE CASCADE,
          created_at     TEXT NOT NULL,
          generation     INTEGER,
          knob           TEXT NOT NULL,
          old_value_json TEXT,
          new_value_json TEXT NOT NULL,
          actor          TEXT NOT NULL,
          reason         TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX knob_changes_by_run ON knob_changes (run_id, created_at);

        -- EAU's experience pool: findings that persist across runs (run_id is where one came from).
        CREATE TABLE experience_notes (
          id         INTEGER PRIMARY KEY,
          created_at TEXT NOT NULL,
          run_id     TEXT REFERENCES runs (id) ON DELETE SET NULL,
          author     TEXT NOT NULL,
          topic      TEXT NOT NULL,
          text       TEXT NOT NULL,
          tags_json  TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX experience_notes_by_topic ON experience_notes (topic, created_at);
      `);
    },
  },
  {
    version: 3,
    name: 'imported utterance corpora (Banking77-format CSVs)',
    up(db) {
      db.exec(`
        -- One row per import: which file, when, and how many rows were taken or reported.
        CREATE TABLE corpus_imports (
          id          INTEGER PRIMARY KEY,
          source      TEXT NOT NULL,
          file        TEXT NOT NULL,
          imported_at TEXT NOT NULL,
          rows        INTEGER NOT NULL,
          problems    INTEGER NOT NULL
        );
        -- Customer utterances with their intent, used as SFT demonstrations; line is where the
        -- record starts in the imported file.
        CREATE TABLE corpus_utterances (
          import_id INTEGER NOT NULL REFERENCES corpus_imports (id) ON DELETE CASCADE,
          line      INTEGER NOT NULL,
          intent    TEXT NOT NULL,
          text      TEXT NOT NULL,
          PRIMARY KEY (import_id, line)
        ) WITHOUT ROWID;
        CREATE INDEX corpus_utterances_by_intent ON corpus_utterances (intent);
      `);
    },
  },
  {
    version: 4,
    name: 'training data of each checkpoint',
    up(db) {
      db.exec(`
        -- What a checkpoint was trained on, beside parent_id's lineage of weights: a JSON array
        -- of {"kind": "match" | "episode" | "corpus_import" | "demos" | …, "id": "…"}, e.g. the
        -- arena matches whose transcripts fed the isolation gym that produced DA2.
        ALTER TABLE checkpoints ADD COLUMN training_data_json TEXT NOT NULL DEFAULT '[]';
      `);
    },
  },
  {
    version: 5,
    name: 'run metric series and stopped runs',
    up(db) {
      db.exec(`
        -- Gym and bootstrap curves of a run, by metrics-registry key (gym/reward_mean, gym/kl, …).
        -- phase names the training phase (e.g. 'gym:DA1'); step counts within the run.
        CREATE TABLE run_metrics (
          run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          phase  TEXT NOT NULL,
          key    TEXT NOT NULL,
          step   INTEGER NOT NULL,
          value  REAL NOT NULL,
          PRIMARY KEY (run_id, phase, key, step)
        ) WITHOUT ROWID;
        -- The preset a run started from, for lists; '' for runs from a config file.
        ALTER TABLE runs ADD COLUMN preset TEXT NOT NULL DEFAULT '';
      `);
    },
  },
  {
    version: 6,
    name: 'labelling queues, annotators and their labels',
    up(db) {
      db.exec(`
        CREATE TABLE annotators (
          name       TEXT PRIMARY KEY,
          created_at TEXT NOT NULL
        );
        -- A sample of items for people to label: the CA's opening utterances (tactic) or whole
        -- episodes (audit of the judge). labels_json: the tactic label set in hotkey order.
        CREATE TABLE label_queues (
          id          TEXT PRIMARY KEY,
          kind        TEXT NOT NULL CHECK (kind IN ('tactic', 'audit')),
          created_at  TEXT NOT NULL,
          labels_json TEXT NOT NULL,
          match_ids_json TEXT NOT NULL,
          per_match   INTEGER NOT NULL,
          seed        INTEGER NOT NULL
        );
        -- pos is the item's id within its queue and the order annotators see it in.
        CREATE TABLE label_items (
          queue_id   TEXT NOT NULL REFERENCES label_queues (id) ON DELETE CASCADE,
          pos        INTEGER NOT NULL,
          episode_id TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
          -- The labelled turn (the opening utterance); null when the whole episode is labelled.
          turn_idx   INTEGER,
          PRIMARY KEY (queue_id, pos),
          UNIQUE (queue_id, episode_id)
        ) WITHOUT ROWID;
        -- One row per (item, annotator): a second write by the same person updates the row
        -- (revision + 1, time spent added) instead of adding one. value_json: a tactic label as a
        -- JSON string, an audit verdict {resolved, tier, hallucination}, or null for a skip.
        CREATE TABLE labels (
          queue_id   TEXT NOT NULL,
          pos        INTEGER NOT NULL,
          annotator  TEXT NOT NULL REFERENCES annotators (name) ON DELETE CASCADE,
          value_json TEXT,
          note       TEXT NOT NULL DEFAULT '',
          ms_spent   INTEGER NOT NULL CHECK (ms_spent >= 0),
          revision   INTEGER NOT NULL DEFAULT 1,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          -- Lab-wide write order, so undo takes back an annotator's latest write.
          write_seq  INTEGER NOT NULL,
          PRIMARY KEY (queue_id, pos, annotator),
          FOREIGN KEY (queue_id, pos) REFERENCES label_items (queue_id, pos) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX labels_by_annotator ON labels (annotator, queue_id, write_seq);
      `);
    },
  },
  {
    version: 7,
    name: 'human-played episodes and unfinished play sessions',
    up(db) {
      db.exec(`
        -- Unfinished human-played episodes (drafts), written after every move so that a closed
        -- window loses nothing: resumed by replaying turns_json on the seeded world, or
        -- discarded. Storing the finished episode deletes its draft in the same transaction.
        CREATE TABLE play_sessions (
          id                  TEXT PRIMARY KEY,
          created_at          TEXT NOT NULL,
          updated_at          TEXT NOT NULL,
          player              TEXT NOT NULL,
          seat                TEXT NOT NULL CHECK (seat IN ('customer', 'agent')),
          opponent            TEXT NOT NULL,
          scenario_id         TEXT NOT NULL,
          seed                INTEGER NOT NULL,
          config_json         TEXT NOT NULL,
          forked_from_episode TEXT REFERENCES episodes (id) ON DELETE SET NULL,
          forked_from_turn    INTEGER,
          turns_json          TEXT NOT NULL DEFAULT '[]'
        );
        -- Episodes a person played: who, in which seat, against which policy, and the stored
        -- episode and turn a take-over continued from.
        CREATE TABLE human_episodes (
          episode_id          TEXT PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE,
          player              TEXT NOT NULL,
          seat                TEXT NOT NULL CHECK (seat IN ('customer', 'agent')),
          opponent            TEXT NOT NULL,
          played_at           TEXT NOT NULL,
          forked_from_episode TEXT REFERENCES episodes (id) ON DELETE SET NULL,
          forked_from_turn    INTEGER
        );
        CREATE INDEX human_episodes_by_seat ON human_episodes (seat, played_at);
      `);
    },
  },
  {
    version: 8,
    name: 'adversity firings and the fallback reward term',
    up(db) {
      db.exec(`
        -- MADS adversities that fired in an episode: a JSON array of {"kind", "turn", "detail"}.
        ALTER TABLE episodes ADD COLUMN adversities_json TEXT NOT NULL DEFAULT '[]';
        -- r_env's impossible-scenario term: fallback credit or claimed-success penalty.
        ALTER TABLE episodes ADD COLUMN da_env_fallback REAL NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    version: 9,
    name: 'custom scenarios and stored validator failures',
    up(db) {
      db.exec(`
        -- Scenarios people wrote in the lab (the app's editor, "sparring scenarios add"); they join
        -- the robustness set. scenario_json is the scenario as the scenario schema validated it.
        CREATE TABLE custom_scenarios (
          id            TEXT PRIMARY KEY,
          scenario_json TEXT NOT NULL,
          created_at    TEXT NOT NULL,
          updated_at    TEXT NOT NULL
        );
        -- MADS validators that failed on the episode, as bits (1 syntax, 2 faithfulness,
        -- 4 role confusion, 8 task success); NULL: not computed yet (stored before this
        -- migration, or its custom scenario changed), filled in on first need.
        ALTER TABLE episodes ADD COLUMN validator_failed INTEGER;
        -- Finds the episodes still to validate without scanning the table.
        CREATE INDEX episodes_unvalidated ON episodes (id) WHERE validator_failed IS NULL;
      `);
    },
  },
  {
    version: 10,
    name: 'why a gym ended early, with its checkpoint',
    up(db) {
      db.exec(`
        -- A gym's note (it stopped at its trust region, or diverged and kept its parent's
        -- weights), stored with the checkpoint it made, so a run restored after that save but
        -- before its next snapshot still reports it. NULL: nothing to say.
        ALTER TABLE checkpoints ADD COLUMN note TEXT;
      `);
    },
  },
  {
    version: 11,
    name: 'the checkpoint each policy SPEC resolved to, with matches and play sessions',
    up(db) {
      db.exec(`
        -- A match records the stored checkpoint each side's SPEC resolved to (latest → DA3,
        -- sft → DA-sft-1), so it still says what played once newer checkpoints exist. NULL: the
        -- policy is not a checkpoint (scripted, a person), or it was not recorded.
        ALTER TABLE matches ADD COLUMN da_checkpoint_id TEXT;
        ALTER TABLE matches ADD COLUMN da_checkpoint_name TEXT;
        ALTER TABLE matches ADD COLUMN ca_checkpoint_id TEXT;
        ALTER TABLE matches ADD COLUMN ca_checkpoint_name TEXT;
        -- Older matches whose SPEC was a checkpoint name (every run's matches) resolved to it;
        -- latest and sft cannot be told after the fact and stay NULL.
        UPDATE matches SET da_checkpoint_id = c.id, da_checkpoint_name = c.name
          FROM checkpoints c WHERE c.name = matches.da_spec AND c.role = 'DA';
        UPDATE matches SET ca_checkpoint_id = c.id, ca_checkpoint_name = c.name
          FROM checkpoints c WHERE c.name = matches.ca_spec AND c.role = 'CA';
        -- An unfinished play session keeps the checkpoint its opponent resolved to when it
        -- started, so resuming it after a newer checkpoint exists plays the same opponent.
        ALTER TABLE play_sessions ADD COLUMN opponent_checkpoint_id TEXT;
        ALTER TABLE play_sessions ADD COLUMN opponent_checkpoint_name TEXT;
      `);
    },
  },
  {
    version: 12,
    name: 'LLM endpoints, call records and the response cache',
    up(db) {
      db.exec(`
        -- OpenAI-compatible endpoints saved by name (sparring models add). The API key is never
        -- stored: only the name of the environment variable that holds it.
        CREATE TABLE llm_endpoints (
          name            TEXT PRIMARY KEY,
          base_url        TEXT NOT NULL,
          model           TEXT NOT NULL,
          api_key_env     TEXT,
          tool_calls      TEXT NOT NULL CHECK (tool_calls IN ('native', 'text')),
          max_concurrency INTEGER NOT NULL CHECK (max_concurrency >= 1),
          created_at      TEXT NOT NULL
        );
        -- Every call an LLM policy made, per turn: model, parameters, seed, latency, tokens.
        -- episode_id/turn link it to the stored turn it produced (NULL for calls outside a match).
        CREATE TABLE llm_calls (
          id             INTEGER PRIMARY KEY,
          endpoint       TEXT NOT NULL,
          model          TEXT NOT NULL,
          episode_id     TEXT,
          turn           INTEGER,
          role           TEXT CHECK (role IN ('DA', 'CA')),
          request_key    TEXT NOT NULL,
          params_json    TEXT NOT NULL,
          seed           INTEGER,
          latency_ms     REAL NOT NULL,
          tokens_in      INTEGER NOT NULL,
          tokens_out     INTEGER NOT NULL,
          cached         INTEGER NOT NULL CHECK (cached IN (0, 1)),
          finish_reason  TEXT NOT NULL,
          created_at     TEXT NOT NULL
        );
        CREATE INDEX llm_calls_episode ON llm_calls (episode_id, turn);
        -- Answers by the hash of the exact request (endpoint, model, messages, tools, parameters,
        -- seed): an identical request is answered from here (--no-cache bypasses it).
        CREATE TABLE llm_cache (
          request_key  TEXT PRIMARY KEY,
          endpoint     TEXT NOT NULL,
          result_json  TEXT NOT NULL,
          created_at   TEXT NOT NULL
        );
        CREATE INDEX llm_cache_endpoint ON llm_cache (endpoint);
      `);
    },
  },
  {
    version: 13,
    name: 'studies: seeds × arms of runs',
    up(db) {
      db.exec(`
        -- A study (sparring study): every (arm, seed) is an ordinary run of the lab. base_config_json
        -- is the preset's (or --config file's) run config the arms' overlays apply to; arms_json and
        -- seeds_json keep the order the user gave.
        CREATE TABLE studies (
          id               TEXT PRIMARY KEY,
          created_at       TEXT NOT NULL,
          updated_at       TEXT NOT NULL,
          preset           TEXT NOT NULL,
          base_config_json TEXT NOT NULL,
          arms_json        TEXT NOT NULL,
          seeds_json       TEXT NOT NULL,
          status           TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed'))
        );

        -- One (arm, seed) of a study and its run (NULL until created). status is the study's view:
        -- 'failed' with error when the run failed or its worker process died.
        CREATE TABLE study_runs (
          study_id TEXT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
          arm      TEXT NOT NULL,
          seed     INTEGER NOT NULL,
          run_id   TEXT REFERENCES runs (id) ON DELETE SET NULL,
          status   TEXT NOT NULL CHECK (status IN ('pending', 'running', 'finished', 'failed')),
          error    TEXT,
          seconds  REAL,
          PRIMARY KEY (study_id, arm, seed)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX study_runs_by_run ON study_runs (run_id) WHERE run_id IS NOT NULL;

        -- Evaluations a study adds to its runs': e.g. a fixed-opponent arm's final DA against the
        -- full arm's final CA of the same seed ('vs-full-ca'). result_json: the held-out metrics.
        CREATE TABLE study_evaluations (
          study_id    TEXT NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
          arm         TEXT NOT NULL,
          seed        INTEGER NOT NULL,
          kind        TEXT NOT NULL,
          result_json TEXT NOT NULL,
          PRIMARY KEY (study_id, arm, seed, kind)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 14,
    name: 'the device each run and checkpoint used',
    up(db) {
      db.exec(`
        -- The device a run's policies ran on (core/contract/device.ts DeviceRecord as JSON: what
        -- was asked for, the provider after any fallback, and why), written when the run starts and
        -- each time it resumes. NULL: a run from before this migration (they all ran on the CPU).
        ALTER TABLE runs ADD COLUMN device_json TEXT;
        -- The execution provider the model that produced a checkpoint trained on ('cpu', 'webgpu', …).
        -- NULL: not recorded (saved before this migration, or imported).
        ALTER TABLE checkpoints ADD COLUMN provider TEXT;
      `);
    },
  },
  {
    version: 15,
    name: "EAU: each episode's customer arm, and the diagnostics' proposals",
    up(db) {
      db.exec(`
        -- Who played the customer seat under the symbolic-user mix ε (core/eau/customer-mix.ts):
        -- 'symbolic' (the rule-based customer) or 'learned' (the run's CA). NULL: no mix.
        ALTER TABLE episodes ADD COLUMN customer TEXT CHECK (customer IN ('symbolic', 'learned'));

        -- What the EAU diagnostics (core/eau/diagnostics.ts) proposed after a match or a gym: a
        -- KnobProposal (core/eau/proposal.ts) as JSON. Never applied by the run; a person decides.
        CREATE TABLE eau_proposals (
          id            INTEGER PRIMARY KEY,
          run_id        TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          created_at    TEXT NOT NULL,
          match_index   INTEGER,
          gym_id        TEXT,
          diagnostic    TEXT NOT NULL,
          knob          TEXT NOT NULL,
          proposal_json TEXT NOT NULL
        );
        CREATE INDEX eau_proposals_by_run ON eau_proposals (run_id, id);
      `);
    },
  },
  {
    version: 16,
    name: 'local GGUF models saved by name',
    up(db) {
      db.exec(`
        -- A local GGUF file saved by name (sparring models add NAME --gguf FILE), beside the
        -- endpoints and sharing their names: the path, the file's SHA-256 (checked when it loads;
        -- it is part of every cache key), where it runs and its context window.
        CREATE TABLE llm_gguf_models (
          name          TEXT PRIMARY KEY,
          path          TEXT NOT NULL,
          sha256        TEXT NOT NULL CHECK (length(sha256) = 64),
          gpu           TEXT NOT NULL CHECK (gpu IN ('auto', 'cpu', 'cuda', 'vulkan', 'metal')),
          context_size  INTEGER NOT NULL CHECK (context_size >= 256),
          threads       INTEGER NOT NULL CHECK (threads >= 0),
          created_at    TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 17,
    name: 'gym jobs: gyms handed to an external trainer',
    up(db) {
      db.exec(`
        -- A gym of a run whose role trains outside Sparring (run config gym.da.trainer or
        -- gym.ca.trainer = 'external'): the run exported the gym to export_path and waits until a
        -- checkpoint is registered for it (sparring checkpoints add: status 'done', checkpoint set)
        -- or the job is cancelled (sparring gym cancel: the run keeps from_checkpoint). One job per
        -- gym of a run; gym_index counts the run's gyms from 1, as sparring gym export does.
        CREATE TABLE gym_jobs (
          id              TEXT PRIMARY KEY,
          run_id          TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          gym_index       INTEGER NOT NULL CHECK (gym_index >= 1),
          role            TEXT NOT NULL CHECK (role IN ('DA', 'CA')),
          from_checkpoint TEXT NOT NULL,
          opponent        TEXT NOT NULL,
          match_id        TEXT NOT NULL,
          export_path     TEXT NOT NULL,
          status          TEXT NOT NULL CHECK (status IN ('waiting', 'done', 'failed', 'cancelled')),
          created_at      TEXT NOT NULL,
          finished_at     TEXT,
          checkpoint      TEXT,
          note            TEXT,
          UNIQUE (run_id, gym_index)
        );
        CREATE INDEX gym_jobs_by_status ON gym_jobs (status);
      `);
    },
  },
  {
    version: 18,
    name: 'panel evaluations: a DA against counterparts that share nothing with its training',
    up(db) {
      db.exec(`
        -- One DA checkpoint's held-out evaluation against one counterpart of its panel (IB-RL's
        -- counterpart shift; core/arena/panel.ts): counterpart is a key such as 'scripted',
        -- 'ca:CA7', 'llm:NAME' or 'human:<episode ids>'; role is 'panel' or 'training' (the DA's
        -- own training counterpart, for the mismatch gap); protocol names the seeds and episodes,
        -- so a result is reused only under the same protocol. result_json: HeldoutMetrics plus,
        -- for human episodes, how far each was replayed.
        CREATE TABLE panel_evaluations (
          da          TEXT NOT NULL,
          counterpart TEXT NOT NULL,
          protocol    TEXT NOT NULL,
          role        TEXT NOT NULL CHECK (role IN ('panel', 'training')),
          kind        TEXT NOT NULL,
          label       TEXT NOT NULL,
          created_at  TEXT NOT NULL,
          seconds     REAL,
          result_json TEXT NOT NULL,
          PRIMARY KEY (da, counterpart, protocol)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 19,
    name: 'EAU knob writes and proposals',
    up(db) {
      db.exec(`
        -- EAU's checked writes to a run's knobs (core/eau/knobs.ts), queued 'pending' until the
        -- runner applies them at a step or phase boundary; the effective config of a run is its
        -- config_json with the applied writes set in applied_seq order.
        CREATE TABLE knob_writes (
          id                 INTEGER PRIMARY KEY,
          run_id             TEXT NOT NULL REFERENCES runs(id),
          knob               TEXT NOT NULL,
          value              REAL NOT NULL,
          -- The knob's value when the write was made (pending writes stacked), and when it applied.
          requested_from     REAL NOT NULL,
          from_value         REAL,
          reason             TEXT NOT NULL,
          -- person[:name] | diagnostic:<name> | llm:<model> | inherited:R<n>/W<n>
          by                 TEXT NOT NULL,
          status             TEXT NOT NULL CHECK (status IN ('pending', 'applied')),
          created_at         TEXT NOT NULL,
          -- The run's state at write time: phase, matches played, gym metric steps stored.
          state_json         TEXT NOT NULL,
          applied_at         TEXT,
          -- Where the runner took it: phase, matches played, the gym and its step, the run-wide metric step.
          applied_state_json TEXT,
          applied_seq        INTEGER,
          -- A revert is a write back to the previous value, linked to the write it reverts.
          reverts            INTEGER REFERENCES knob_writes(id),
          proposal_id        INTEGER
        );
        CREATE INDEX knob_writes_run ON knob_writes (run_id, status);
        CREATE INDEX knob_writes_knob ON knob_writes (knob);
        -- What diagnostics (or an LLM meta-agent) propose (core/eau/proposal.ts); never applied silently.
        CREATE TABLE knob_proposals (
          id            INTEGER PRIMARY KEY,
          run_id        TEXT NOT NULL REFERENCES runs(id),
          knob          TEXT NOT NULL,
          value_json    TEXT NOT NULL,
          reason        TEXT NOT NULL,
          source_json   TEXT NOT NULL,
          evidence_json TEXT NOT NULL,
          at_json       TEXT NOT NULL,
          status        TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'edited', 'dismissed')),
          created_at    TEXT NOT NULL,
          decided_at    TEXT,
          write_id      INTEGER REFERENCES knob_writes(id)
        );
        CREATE INDEX knob_proposals_run ON knob_proposals (run_id, status);
      `);
    },
  },
  {
    version: 20,
    name: "LLM call records: the judge's calls",
    up(db) {
      // SQLite cannot widen a CHECK in place: the table is rebuilt with every row and id kept.
      db.exec(`
        -- role: who made the call — the agent (DA), the customer (CA), or the judge scoring a
        -- finished episode ('judge': episode_id is the episode judged and turn its turn count;
        -- both NULL for a judge call outside a stored episode, e.g. a gym rollout or judge-eval).
        CREATE TABLE llm_calls_v20 (
          id             INTEGER PRIMARY KEY,
          endpoint       TEXT NOT NULL,
          model          TEXT NOT NULL,
          episode_id     TEXT,
          turn           INTEGER,
          role           TEXT CHECK (role IN ('DA', 'CA', 'judge')),
          request_key    TEXT NOT NULL,
          params_json    TEXT NOT NULL,
          seed           INTEGER,
          latency_ms     REAL NOT NULL,
          tokens_in      INTEGER NOT NULL,
          tokens_out     INTEGER NOT NULL,
          cached         INTEGER NOT NULL CHECK (cached IN (0, 1)),
          finish_reason  TEXT NOT NULL,
          created_at     TEXT NOT NULL
        );
        INSERT INTO llm_calls_v20 SELECT id, endpoint, model, episode_id, turn, role, request_key, params_json, seed, latency_ms,
          tokens_in, tokens_out, cached, finish_reason, created_at FROM llm_calls;
        DROP TABLE llm_calls;
        ALTER TABLE llm_calls_v20 RENAME TO llm_calls;
        CREATE INDEX llm_calls_episode ON llm_calls (episode_id, turn);
      `);
    },
  },
  {
    version: 21,
    name: 'LLM checkpoints: what an external trainer hands back as a model spec',
    up(db) {
      db.exec(`
        -- A checkpoint that is an LLM rather than builtin weights (sparring checkpoints add --model
        -- SPEC, SPEC a saved endpoint, a saved GGUF model or gguf:FILE): the spec and what it named
        -- when registered, as JSON (LlmCheckpointSpec in host/store/checkpoint-store.ts). Its
        -- weights are empty and model_json says {"kind":"llm"}. NULL: a builtin checkpoint.
        ALTER TABLE checkpoints ADD COLUMN llm_json TEXT;
      `);
    },
  },
  {
    version: 22,
    name: 'bootstraps a run can reuse: DA0 and CA0 by what they were trained from',
    up(db) {
      db.exec(`
        -- A run's bootstrap (DA0 and CA0) is a function of its seed, its bootstrap config, the arena
        -- and reward settings, the domain and the execution provider; key is a hash of those
        -- (host/coevolution/bootstrap-reuse.ts). A later run with the same key copies the two
        -- checkpoints instead of training them again (the arms of a study share each seed's).
        CREATE TABLE bootstraps (
          key        TEXT PRIMARY KEY,
          run_id     TEXT NOT NULL,
          da         TEXT NOT NULL REFERENCES checkpoints (id),
          ca         TEXT NOT NULL REFERENCES checkpoints (id),
          created_at TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 23,
    name: 'checkpoint weights and optimiser state stored once per content',
    up(db) {
      db.exec(`
        -- A checkpoint's weights and optimiser state by content (hash: sha256 of the bytes, hex):
        -- the same bytes are stored once, however many checkpoints hold them (the arms of a study
        -- copy each seed's DA0 and CA0, and their optimiser state with them). Checkpoints saved
        -- before keep their bytes inline in checkpoints.weights / optimiser, with NULL hashes; a
        -- checkpoint saved since has an empty weights blob, a NULL optimiser, and the hashes.
        CREATE TABLE checkpoint_blobs (
          hash  TEXT PRIMARY KEY,
          bytes BLOB NOT NULL
        );
        ALTER TABLE checkpoints ADD COLUMN weights_hash TEXT REFERENCES checkpoint_blobs (hash);
        ALTER TABLE checkpoints ADD COLUMN optimiser_hash TEXT REFERENCES checkpoint_blobs (hash);
        CREATE INDEX checkpoints_by_weights ON checkpoints (weights_hash);
        CREATE INDEX checkpoints_by_optimiser ON checkpoints (optimiser_hash);
        -- Sparring never deletes a checkpoint; when someone does, the bytes no other checkpoint
        -- holds go with it.
        CREATE TRIGGER checkpoint_blobs_release AFTER DELETE ON checkpoints BEGIN
          DELETE FROM checkpoint_blobs
           WHERE hash IN (old.weights_hash, old.optimiser_hash)
             AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE weights_hash = checkpoint_blobs.hash)
             AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE optimiser_hash = checkpoint_blobs.hash);
        END;
      `);
    },
  },
  {
    version: 24,
    name: 'GGUF models: context sequences',
    up(db) {
      db.exec(`
        -- Calls a saved GGUF model runs at once, each on its own context sequence of the file's one
        -- context (node-llama-cpp batches their tokens together); models saved before had one.
        ALTER TABLE llm_gguf_models ADD COLUMN sequences INTEGER NOT NULL DEFAULT 1 CHECK (sequences BETWEEN 1 AND 64);
      `);
    },
  },
  {
    version: 25,
    name: 'studies: arena only',
    up(db) {
      db.exec(`
        -- A study made for choosing settings on the arena (\`sparring study --arena-only\`): its views
        -- show no held-out or panel figure unless asked for by name. Studies made before showed them.
        ALTER TABLE studies ADD COLUMN arena_only INTEGER NOT NULL DEFAULT 0 CHECK (arena_only IN (0, 1));
      `);
    },
  },
  {
    version: 26,
    name: 'studies: owner',
    up(db) {
      db.exec(`
        -- The process running a study (its host and pid) and when it last said it was alive: a
        -- 'running' study whose owner is gone was interrupted (and may be resumed), one whose owner
        -- is alive must not be run by a second process. NULL: nobody runs it (studies made before).
        ALTER TABLE studies ADD COLUMN owner_host TEXT;
        ALTER TABLE studies ADD COLUMN owner_pid INTEGER;
        ALTER TABLE studies ADD COLUMN heartbeat_at TEXT;
      `);
    },
  },
  {
    version: 27,
    name: 'runs: arena only',
    up(db) {
      db.exec(`
        -- A run made for choosing settings on the arena (\`sparring run --arena-only\`, or a run of an
        -- arena-only study): it plays and stores its held-out evaluation as any run, and its views leave
        -- it out unless asked for by name. The runs of the arena-only studies made before are marked.
        ALTER TABLE runs ADD COLUMN arena_only INTEGER NOT NULL DEFAULT 0 CHECK (arena_only IN (0, 1));
        UPDATE runs SET arena_only = 1
         WHERE id IN (SELECT r.run_id FROM study_runs r JOIN studies s ON s.id = r.study_id WHERE s.arena_only = 1);
      `);
    },
  },
  {
    version: 28,
    name: 'runs: owner and metric marks',
    up(db) {
      db.exec(`
        -- The process driving a run (its host and pid) and when it last said it was alive, as
        -- migration 26 for studies: a second process may resume the run only once that owner is
        -- gone (host/store/run-lease.ts). NULL: nobody drives it.
        ALTER TABLE runs ADD COLUMN owner_host TEXT;
        ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
        ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
        -- The next metric step of each key at the run's last phase boundary (JSON {key: step}),
        -- saved with its snapshot: a resumed run drops the points a killed attempt wrote after it,
        -- so a replayed phase replaces its series instead of appending to them. NULL: runs
        -- persisted before (their series are left as they are).
        ALTER TABLE runs ADD COLUMN metric_marks_json TEXT;
      `);
    },
  },
  {
    version: 29,
    name: "labs that merge: the lab's identity and the ledger of merged rows",
    up(db) {
      db.exec(`
        -- lab_id: this lab's identity (random, made once), by which a lab it is merged into recognises
        -- the rows that came from it (sparring lab merge; host/store/lab-merge.ts).
        CREATE TABLE lab_meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO lab_meta (key, value) VALUES ('lab_id', lower(hex(randomblob(16))));
        -- One row per merge into this lab (not per dry run): the other lab's identity and file, and
        -- what came in, as JSON (MergeReport's counts).
        CREATE TABLE lab_merges (
          id          INTEGER PRIMARY KEY,
          source_lab  TEXT NOT NULL,
          file        TEXT NOT NULL,
          merged_at   TEXT NOT NULL,
          counts_json TEXT NOT NULL
        );
        -- Where each row with an identity of its own (an id, a name, a hash) came from: the lab,
        -- the table and its key there, and its key here (renamed when the key was taken). A second
        -- merge of the same lab finds its rows here and adds nothing.
        CREATE TABLE lab_merge_rows (
          source_lab TEXT NOT NULL,
          tbl        TEXT NOT NULL,
          source_key TEXT NOT NULL,
          local_key  TEXT NOT NULL,
          PRIMARY KEY (source_lab, tbl, source_key)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 30,
    name: 'runs: a note a person writes',
    up(db) {
      db.exec(`
        -- Which run is this? A line a person writes about a run (the app's run identity, \`sparring
        -- runs note R "…"\`), shown wherever the run or one of its checkpoints is. NULL: none.
        ALTER TABLE runs ADD COLUMN note TEXT;
      `);
    },
  },
];

/** The schema version this code writes: the last migration's (versions rise; other branches' may fill a gap). */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;

export function userVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Bring `db` up to `target` (default: the latest). Each migration and its user_version bump
 * commit together, so a failure leaves the database at the previous version. Throws without
 * touching anything when the database is newer than `target`'s code knows.
 */
export function applyMigrations(db: Database, target: number = LATEST_VERSION): number {
  if (!Number.isInteger(target) || target < 0 || target > LATEST_VERSION) {
    throw new RangeError(`migration target ${target} is not between 0 and ${LATEST_VERSION}`);
  }
  const current = userVersion(db);
  if (current > LATEST_VERSION) throw newerSchemaError(db.name, current);
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > target) continue;
    try {
      // IMMEDIATE takes the write lock before re-reading the version, so two processes opening
      // the same new lab file cannot both run a migration.
      db.transaction(() => {
        if (userVersion(db) >= m.version) return;
        m.up(db);
        db.pragma(`user_version = ${m.version}`);
      }).immediate();
    } catch (err) {
      throw new Error(`${db.name}: migration ${m.version} (${m.name}) failed: ${String(err)}`, { cause: err });
    }
  }
  return userVersion(db);
}

export function newerSchemaError(path: string, version: number): Error {
  return new Error(
    `${path} has schema version ${version}, but this version of Sparring only knows up to ` +
      `${LATEST_VERSION}; it was written by a newer Sparring. Upgrade Sparring to open it ` +
      `(the file was left untouched).`,
  );
}

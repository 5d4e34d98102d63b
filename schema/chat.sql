-- chat.message: the table of the seed experiment (100M rows, 14 GB: ~140 bytes per row on disk).
-- loadgen fills it in primary-key order with deterministic rows (alias 8-15 chars, body 60-84
-- chars); with the two ids and the timestamp that is ~140 B/row including InnoDB's 18-byte
-- record header, transaction id and roll pointer.
CREATE TABLE message (
  id          BIGINT UNSIGNED NOT NULL,
  channel_id  INT UNSIGNED    NOT NULL,
  author_id   INT UNSIGNED    NOT NULL,
  alias       VARCHAR(32)     NOT NULL,
  body        VARCHAR(255)    NOT NULL,
  created_at  DATETIME        NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;

-- chat.message with a wider row, as when a feature adds columns: a 200-byte `meta` column with a
-- default (the loader fills only the base columns) makes each leaf hold about half the rows, so
-- the table has about twice the leaf pages and every access order touches twice the pages.
CREATE TABLE message (
  id          BIGINT UNSIGNED NOT NULL,
  channel_id  INT UNSIGNED    NOT NULL,
  author_id   INT UNSIGNED    NOT NULL,
  alias       VARCHAR(32)     NOT NULL,
  body        VARCHAR(255)    NOT NULL,
  created_at  DATETIME        NOT NULL,
  meta        CHAR(200)       NOT NULL DEFAULT 'loadgen-wide-row',
  PRIMARY KEY (id)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;

-- chat.message with a secondary index on (channel_id, created_at), the usual "latest messages of
-- a channel" index: the clustered index keeps its geometry, but the table grows by the index's
-- pages and seeding maintains it (point selects by id still descend only the primary key).
CREATE TABLE message (
  id          BIGINT UNSIGNED NOT NULL,
  channel_id  INT UNSIGNED    NOT NULL,
  author_id   INT UNSIGNED    NOT NULL,
  alias       VARCHAR(32)     NOT NULL,
  body        VARCHAR(255)    NOT NULL,
  created_at  DATETIME        NOT NULL,
  PRIMARY KEY (id),
  KEY channel_created (channel_id, created_at)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;

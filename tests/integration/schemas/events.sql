-- A plain application table: an auto-increment key, a secondary index, nullable text.
CREATE TABLE events (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  user_id     INT UNSIGNED    NOT NULL,
  kind        ENUM('view', 'click', 'buy') NOT NULL,
  payload     VARCHAR(200)    NULL,
  created_at  DATETIME        NOT NULL,
  PRIMARY KEY (id),
  KEY by_user (user_id)
) ENGINE=InnoDB;

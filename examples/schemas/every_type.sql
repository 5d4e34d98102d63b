-- every column type loadgen generates
CREATE TABLE orders (
  tenant_id   INT UNSIGNED NOT NULL,
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  qty         SMALLINT NOT NULL,
  price       DECIMAL(10,2) NOT NULL,
  ratio       DOUBLE NULL,
  small_f     FLOAT(5,2) NULL,
  code        CHAR(8) NOT NULL,
  title       VARCHAR(120) NULL,
  body        TEXT NULL,
  created_at  DATETIME NOT NULL,
  updated_at  TIMESTAMP NULL,
  day         DATE NOT NULL,
  at          TIME NOT NULL,
  yr          YEAR NOT NULL,
  doc         JSON NULL,
  state       ENUM('new','paid','shipped','void') NOT NULL,
  flags       SET('a','b','c') NOT NULL,
  active      BOOLEAN NOT NULL,
  shape       POINT NULL,
  total       DECIMAL(14,2) AS (qty * price) VIRTUAL,
  PRIMARY KEY (tenant_id, id),
  KEY (id),
  KEY by_created (created_at)
) ENGINE=InnoDB;
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40));

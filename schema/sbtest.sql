-- sysbench's table (oltp_common.lua's create_table, `--workload sysbench-oltp-ro` / `-rw`):
-- id, k with the secondary index k_1, c CHAR(120) and pad CHAR(60), named sbtest1 as sysbench
-- names its first table (so `sysbench oltp_read_only --tables=1` runs on the same table). The
-- CHAR columns are latin1: 120 and 60 bytes each, as sysbench's 119- and 59-character values
-- take in its CHAR(120)/CHAR(60) columns.
CREATE TABLE sbtest1 (
  id  INTEGER NOT NULL AUTO_INCREMENT,
  k   INTEGER DEFAULT '0' NOT NULL,
  c   CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
CREATE INDEX k_1 ON sbtest1 (k);

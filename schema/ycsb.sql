-- YCSB's usertable (the core workloads A-F, `--workload ycsb-a` .. `ycsb-f`): a key and 10 fields
-- of 100 bytes (YCSB's fieldcount=10, fieldlength=100: ~1 KB records). YCSB's JDBC binding keys
-- rows by a VARCHAR "user<hash>"; here the key is the record number, so the key distributions
-- address rows 1..rows directly. The fields are CHAR(100) in latin1: exactly 100 bytes each, as
-- YCSB's constant field length, whatever text fills them.
CREATE TABLE usertable (
  ycsb_key BIGINT UNSIGNED NOT NULL,
  field0   CHAR(100) NOT NULL,
  field1   CHAR(100) NOT NULL,
  field2   CHAR(100) NOT NULL,
  field3   CHAR(100) NOT NULL,
  field4   CHAR(100) NOT NULL,
  field5   CHAR(100) NOT NULL,
  field6   CHAR(100) NOT NULL,
  field7   CHAR(100) NOT NULL,
  field8   CHAR(100) NOT NULL,
  field9   CHAR(100) NOT NULL,
  PRIMARY KEY (ycsb_key)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 ROW_FORMAT=DYNAMIC;

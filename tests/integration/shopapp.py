"""A small shop application's traffic, written by hand the way an ORM sends it (not loadgen's own
statements): customers (a unique e-mail, a composite (org, created) index), orders (secondary
keys on the customer and the time placed), order_items (a composite primary key). Its requests:
lookups by unique and non-unique secondary keys, secondary ranges, a composite key's prefix and
full key, two joins, writes by primary key and by a secondary key, inserts. Keys are uniform
(random.Random(seed)): what a hashed key stands for in the model is right in distribution.
"""
from __future__ import annotations

import random

SCHEMA = """
CREATE TABLE customers (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, email VARCHAR(64) NOT NULL,
  org INT NOT NULL, created INT NOT NULL, name VARCHAR(100) NOT NULL,
  UNIQUE KEY email (email), KEY org_created (org, created)) ENGINE=InnoDB;
CREATE TABLE orders (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL,
  placed INT NOT NULL, status TINYINT NOT NULL, total INT NOT NULL, note VARCHAR(160) NOT NULL,
  KEY customer (customer_id), KEY placed (placed)) ENGINE=InnoDB;
CREATE TABLE order_items (order_id INT NOT NULL, line INT NOT NULL, sku INT NOT NULL, qty INT NOT NULL,
  price INT NOT NULL, pad CHAR(80) NOT NULL, PRIMARY KEY (order_id, line), KEY sku (sku)) ENGINE=InnoDB;
"""
ORGS = 200
LINES = 3  # items an order
SKUS = 5000


def seed(conn, customers: int, database: str = "shop") -> None:
    """The three tables, `customers` customers with 3 orders each; orders placed in random order
    (placed does not follow id: a secondary range reads rows all over the table)."""
    rnd = random.Random(7)
    cur = conn.cursor()
    cur.execute(f"CREATE DATABASE {database}")
    cur.execute(f"USE {database}")
    for st in SCHEMA.split(";"):
        if st.strip():
            cur.execute(st)
    for lo in range(1, customers + 1, 1000):
        rows = [(i, f"c{i}@shop.example", rnd.randrange(1, ORGS + 1), rnd.randrange(1, 10**6), f"name {i}" * 3)
                for i in range(lo, min(lo + 1000, customers + 1))]
        cur.executemany("INSERT INTO customers VALUES (%s, %s, %s, %s, %s)", rows)
    n_orders = customers * 3
    placed = list(range(1, n_orders + 1))
    rnd.shuffle(placed)
    for lo in range(1, n_orders + 1, 1000):
        ids = range(lo, min(lo + 1000, n_orders + 1))
        cur.executemany("INSERT INTO orders VALUES (%s, %s, %s, %s, %s, %s)",
                        [(i, rnd.randrange(1, customers + 1), placed[i - 1], 1, rnd.randrange(100, 10**5), "n" * 120)
                         for i in ids])
        cur.executemany("INSERT INTO order_items VALUES (%s, %s, %s, %s, %s, %s)",
                        [(i, line, rnd.randrange(1, SKUS + 1), 1, 100, "p")
                         for i in ids for line in range(1, LINES + 1)])
    conn.commit()
    for t in ("customers", "orders", "order_items"):
        cur.execute(f"ANALYZE TABLE {t}")
        cur.fetchall()
    cur.close()


def requests(customers: int, n: int, seed_: int = 1, next_order: int | None = None):
    """n requests, each a list of statements (one transaction when it writes); new orders from
    next_order on (the table's next id: runs before this one added some)."""
    rnd = random.Random(seed_)
    orders = customers * 3
    next_order = next_order or orders + 1
    for _ in range(n):
        c, o = rnd.randrange(1, customers + 1), rnd.randrange(1, orders + 1)
        r = rnd.random()
        if r < 0.15:
            yield [f"SELECT id, name, org FROM customers WHERE email = 'c{c}@shop.example'"]
        elif r < 0.30:
            yield [f"SELECT id, placed, total FROM orders WHERE customer_id = {c} ORDER BY placed DESC LIMIT 10"]
        elif r < 0.42:
            yield [f"SELECT o.id, o.total, i.sku, i.qty FROM orders o JOIN order_items i ON i.order_id = o.id "
                   f"WHERE o.id = {o}"]
        elif r < 0.50:
            yield [f"SELECT c.name, o.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id "
                   f"WHERE c.id = {c}"]
        elif r < 0.58:
            yield [f"SELECT line, sku, qty FROM order_items WHERE order_id = {o}"]
        elif r < 0.64:
            yield [f"SELECT qty, price FROM order_items WHERE order_id = {o} AND line = {rnd.randrange(1, LINES + 1)}"]
        elif r < 0.70:
            p = rnd.randrange(1, orders - 40)
            yield [f"SELECT id, total FROM orders WHERE placed BETWEEN {p} AND {p + 30}"]
        elif r < 0.76:
            yield [f"SELECT id, email FROM customers WHERE org = {rnd.randrange(1, ORGS + 1)} "
                   f"ORDER BY created DESC LIMIT 20"]
        elif r < 0.86:
            yield ["BEGIN", f"UPDATE orders SET status = 2 WHERE id = {o}", "COMMIT"]
        elif r < 0.92:
            yield ["BEGIN", f"UPDATE customers SET name = 'renamed {c}' WHERE email = 'c{c}@shop.example'", "COMMIT"]
        else:
            items = ", ".join(f"({next_order}, {line}, {rnd.randrange(1, SKUS + 1)}, 1, 100, 'p')"
                              for line in range(1, LINES + 1))
            yield ["BEGIN", f"INSERT INTO orders (id, customer_id, placed, status, total, note) VALUES "
                            f"({next_order}, {c}, {orders + next_order}, 1, 500, 'new')",
                   f"INSERT INTO order_items VALUES {items}", "COMMIT"]
            next_order += 1


def next_order(conn, database: str = "shop") -> int:
    cur = conn.cursor()
    cur.execute(f"SELECT MAX(id) FROM {database}.orders")
    got = int(cur.fetchone()[0]) + 1
    cur.close()
    return got


def run(conn, customers: int, n: int, seed_: int = 1, first_new: int | None = None, database: str = "shop") -> int:
    """Send the requests on one connection; returns the statements sent."""
    cur = conn.cursor()
    cur.execute(f"USE {database}")
    sent = 0
    for req in requests(customers, n, seed_, first_new):
        for st in req:
            cur.execute(st)
            if cur.description:
                cur.fetchall()
            sent += 1
    cur.close()
    return sent

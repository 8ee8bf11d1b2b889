-- The app's fixture database: a small shop. tests/global-setup.ts builds db/shop.sqlite from it.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  total REAL NOT NULL,
  ordered_at TEXT NOT NULL
);
INSERT INTO customers (id, name, city) VALUES
  (1, 'Ada', 'London'),
  (2, 'Grace', 'New York'),
  (3, 'Linus', 'Helsinki'),
  (4, 'Margaret', 'Boston');
INSERT INTO orders (id, customer_id, total, ordered_at) VALUES
  (1, 1, 120.5, '2024-01-03'),
  (2, 1, 80.0, '2024-02-11'),
  (3, 2, 300.0, '2024-02-15'),
  (4, 3, 45.25, '2024-03-01'),
  (5, 2, 150.0, '2024-03-09');

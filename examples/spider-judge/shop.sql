-- The shop of the spider --judge example (docs/judge.md): every order is paid.
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  amount REAL NOT NULL CHECK (amount >= 0),
  status TEXT NOT NULL CHECK (status IN ('paid', 'open', 'void'))
);
INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bo', 'Rome'), (3, 'Cy', 'Lima');
INSERT INTO orders VALUES (10, 1, 12.5, 'paid'), (11, 1, 7.0, 'paid'), (12, 2, 30.0, 'paid'), (13, 3, 4.25, 'paid');

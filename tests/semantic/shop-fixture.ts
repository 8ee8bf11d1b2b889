/** A small shop database whose base snapshot hides two classic mistakes (every order is paid; no city repeats). */
export const SHOP_SCHEMA = `
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT
);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  amount REAL NOT NULL CHECK (amount >= 0),
  status TEXT NOT NULL CHECK (status IN ('paid', 'open', 'void'))
);
INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bo', 'Rome'), (3, 'Cy', 'Lima');
INSERT INTO orders VALUES (10, 1, 12.5, 'paid'), (11, 1, 7.0, 'paid'), (12, 2, 30.0, 'paid'), (13, 3, 4.25, 'paid');
`;

/** Golds on the shop: one filter the base snapshot cannot check, one it can. */
export const SHOP_GOLDS = [
  "SELECT COUNT(*) FROM orders WHERE status = 'paid'",
  "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id WHERE o.amount > 10",
] as const;

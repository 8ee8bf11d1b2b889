CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, vip boolean NOT NULL);
INSERT INTO customers VALUES (1, 'Ada', true), (2, 'Bob', false), (3, 'Cy', true);

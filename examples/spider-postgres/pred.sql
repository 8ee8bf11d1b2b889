SELECT count(*) FROM customers WHERE vip = 1
SELECT name FROM customers WHERE vip IS TRUE ORDER BY id
SELECT name FROM customers WHERE id = 2
SELECT count(*) FROM animals

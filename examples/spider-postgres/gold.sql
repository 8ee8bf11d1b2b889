SELECT count(*) FROM customers WHERE vip	shop
SELECT name FROM customers WHERE vip ORDER BY id	shop
SELECT name FROM customers WHERE NOT vip	shop
SELECT count(*) FROM animals	zoo

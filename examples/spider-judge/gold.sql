SELECT COUNT(*) FROM customers	shop
SELECT COUNT(*) FROM customers	shop
SELECT name FROM customers WHERE customer_id = 1	shop
SELECT order_id FROM orders WHERE status = 'void'	shop
SELECT order_id FROM orders WHERE status = 'open'	shop
SELECT name FROM customers	shop

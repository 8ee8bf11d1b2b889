SELECT COUNT(customer_id) FROM customers
SELECT COUNT(*) FROM orders
SELECT name, city FROM customers WHERE customer_id = 1
SELECT order_id FROM orders WHERE amount < 0
SELECT order_id FROM orders WHERE status = 'void'
SELECT nope FROM customers

CREATE TABLE animals (id int PRIMARY KEY, name text);
INSERT INTO animals VALUES (1, 'cat');
INSERT INTO animals VALUES (2, 'dog', 'extra');

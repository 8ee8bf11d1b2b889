-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "museum" (
"Museum_ID" int,
"Name" text,
"Num_of_Staff" int,
"Open_Year" text,
PRIMARY KEY ("Museum_ID")
);
CREATE TABLE IF NOT EXISTS "visitor" (
"ID" int,
"Name" text,
"Level_of_membership" int,
"Age" int,
PRIMARY KEY ("ID")
);
CREATE TABLE IF NOT EXISTS "visit" (
"Museum_ID" int,
"visitor_ID" text,
"Num_of_Ticket" int,
"Total_spent" real,
PRIMARY KEY ("Museum_ID","visitor_ID"),
FOREIGN KEY ("Museum_ID") REFERENCES `museum`("Museum_ID"),
FOREIGN KEY ("visitor_ID") REFERENCES `visitor`("ID")
);
INSERT INTO museum VALUES (1, 'Plaza Museum', 62, '2000'), (2, 'Capital Plaza Museum', 25, '2012'), (3, 'Jefferson Development Museum', 18, '2010'), (4, 'Willow Grande Museum', 17, '2011'), (5, 'RiverBay Museum', 16, '2008');
INSERT INTO visitor VALUES (1, 'Gonzalo Higuaín', 8, 35), (2, 'Guti Midfielder', 5, 28), (3, 'Arjen Robben', 1, 27), (4, 'Raúl Brown', 2, 56), (5, 'Fernando Gago', 6, 36), (6, 'Rafael van der Vaart', 1, 25);
INSERT INTO visit VALUES (1, '5', 20, 320.14), (2, '5', 4, 89.98), (4, '3', 10, 320.44), (2, '3', 24, 209.98), (4, '6', 3, 20.44), (5, '1', 2, 19.98);

-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "employee" (
"Employee_ID" int,
"Name" text,
"Age" int,
"City" text,
PRIMARY KEY ("Employee_ID")
);
CREATE TABLE IF NOT EXISTS "shop" (
"Shop_ID" int,
"Name" text,
"Location" text,
"District" text,
"Number_products" int,
"Manager_name" text,
PRIMARY KEY ("Shop_ID")
);
CREATE TABLE IF NOT EXISTS "hiring" (
"Shop_ID" int,
"Employee_ID" int,
"Start_from" text,
"Is_full_time" bool,
PRIMARY KEY ("Employee_ID"),
FOREIGN KEY (`Shop_ID`) REFERENCES `shop`(`Shop_ID`),
FOREIGN KEY (`Employee_ID`) REFERENCES `employee`(`Employee_ID`)
);
CREATE TABLE IF NOT EXISTS "evaluation" (
"Employee_ID" text,
"Year_awarded" text,
"Bonus" real,
PRIMARY KEY ("Employee_ID","Year_awarded"),
FOREIGN KEY (`Employee_ID`) REFERENCES `employee`(`Employee_ID`)
);
INSERT INTO employee VALUES (1, 'George Chuter', 23, 'Bristol'), (2, 'Lee Mears', 29, 'Bath'), (3, 'Mark Regan', 43, 'Bristol'), (4, 'Jason Hobson', 30, 'Bristol'), (5, 'Tim Payne', 29, 'Wasps'), (6, 'Andrew Sheridan', 28, 'Sale'), (7, 'Matt Stevens', 29, 'Bath');
INSERT INTO shop VALUES (1, 'FC Haka', 'Valkeakoski', 'Tehtaan kenttä', 3516, 'Olli Huttunen'), (2, 'HJK', 'Helsinki', 'Finnair Stadium', 10770, 'Antti Muurinen'), (3, 'FC Honka', 'Espoo', 'Tapiolan Urheilupuisto', 6000, 'Mika Lehkosuo'), (4, 'FC Inter', 'Turku', 'Veritas Stadion', 10000, 'Job Dragtsma'), (5, 'FF Jaro', 'Jakobstad', 'Jakobstads Centralplan', 5000, 'Mika Laurikainen');
INSERT INTO hiring VALUES (1, 1, '2009', 'T'), (1, 2, '2003', 'T'), (2, 3, '2011', 'F'), (4, 4, '2012', 'T'), (4, 5, '2013', 'T');
INSERT INTO evaluation VALUES ('1', '2011', 3000.0), ('2', '2015', 3200.0), ('1', '2016', 3200.0), ('4', '2017', 3000.0), ('7', '2018', 4000.0);

-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "continents" ( 
	"ContId" INTEGER PRIMARY KEY, 
	"Continent" TEXT 
);
CREATE TABLE IF NOT EXISTS "countries" (
	"CountryId" INTEGER PRIMARY KEY, 
	"CountryName" TEXT, 
	"Continent" INTEGER,
	FOREIGN KEY (Continent) REFERENCES continents(ContId)
);
CREATE TABLE IF NOT EXISTS "car_makers" ( 
	"Id" INTEGER PRIMARY KEY, 
	"Maker" TEXT, 
	"FullName" TEXT, 
	"Country" TEXT,
	FOREIGN KEY (Country) REFERENCES countries(CountryId)
);
CREATE TABLE IF NOT EXISTS "model_list" ( 
	"ModelId" INTEGER PRIMARY KEY, 
	"Maker" INTEGER, 
	"Model" TEXT UNIQUE,
	FOREIGN KEY (Maker) REFERENCES car_makers (Id)

);
CREATE TABLE IF NOT EXISTS "car_names" ( 
	"MakeId" INTEGER PRIMARY KEY, 
	"Model" TEXT, 
	"Make" TEXT,
	FOREIGN KEY (Model) REFERENCES model_list (Model)
);
CREATE TABLE IF NOT EXISTS "cars_data" (
	"Id" INTEGER PRIMARY KEY, 
	"MPG" TEXT, 
	"Cylinders" INTEGER, 
	"Edispl" REAL, 
	"Horsepower" TEXT, 
	"Weight" INTEGER, 
	"Accelerate" REAL, 
	"Year" INTEGER,
	FOREIGN KEY (Id) REFERENCES car_names (MakeId)
);
INSERT INTO continents VALUES (1, 'america'), (2, 'europe'), (3, 'asia');
INSERT INTO countries VALUES (1, 'usa', 1), (2, 'germany', 2), (3, 'france', 2), (4, 'japan', 3), (5, 'italy', 2);
INSERT INTO car_makers VALUES (1, 'amc', 'American Motor Company', '1'), (2, 'volkswagen', 'Volkswagen', '2'), (3, 'bmw', 'BMW', '2'), (4, 'gm', 'General Motors', '1'), (5, 'ford', 'Ford Motor Company', '1'), (6, 'toyota', 'Toyota', '4'), (7, 'citroen', 'Citroen', '3');
INSERT INTO model_list VALUES (1, 1, 'amc'), (2, 2, 'audi'), (3, 3, 'bmw'), (4, 4, 'buick'), (5, 4, 'chevrolet'), (6, 5, 'ford'), (7, 6, 'toyota'), (8, 2, 'volkswagen'), (9, 7, 'citroen');
INSERT INTO car_names VALUES (1, 'chevrolet', 'chevrolet chevelle malibu'), (2, 'buick', 'buick skylark 320'), (3, 'amc', 'amc rebel sst'), (4, 'ford', 'ford torino'), (5, 'toyota', 'toyota corona'), (6, 'volkswagen', 'volkswagen 1131 deluxe sedan'), (7, 'bmw', 'bmw 2002'), (8, 'amc', 'amc hornet sportabout (sw)'), (9, 'ford', 'ford pinto'), (10, 'chevrolet', 'chevrolet vega');
INSERT INTO cars_data VALUES (1, '18', 8, 307.0, '130', 3504, 12.0, 1970), (2, '15', 8, 350.0, '165', 3693, 11.5, 1970), (3, '16', 8, 304.0, '150', 3433, 12.0, 1970), (4, '17', 8, 302.0, '140', 3449, 10.5, 1974), (5, '24', 4, 113.0, '95', 2372, 15.0, 1980), (6, '26', 4, 97.0, '46', 1835, 20.5, 1982), (7, '26', 4, 121.0, '113', 2234, 12.5, 1970), (8, '18', 6, 258.0, '110', 3632, 18.0, 1974), (9, '25', 4, 98.0, '90', 2046, 19.0, 1981), (10, '21', 4, 140.0, '72', 2401, 19.5, 1973);

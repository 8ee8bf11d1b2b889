-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS 'airlines' (
	uid INTEGER PRIMARY KEY, 
	Airline TEXT, 
	Abbreviation TEXT, 
	Country TEXT
);
CREATE TABLE IF NOT EXISTS 'airports' (
	City TEXT, 
	AirportCode TEXT PRIMARY KEY, 
	AirportName TEXT, 
	Country TEXT, 
	CountryAbbrev TEXT
);
CREATE TABLE IF NOT EXISTS 'flights' (
	Airline INTEGER, 
	FlightNo INTEGER, 
	SourceAirport TEXT, 
	DestAirport TEXT, 
	PRIMARY KEY(Airline, FlightNo),
	FOREIGN KEY (SourceAirport) REFERENCES airports(AirportCode),
	FOREIGN KEY (DestAirport) REFERENCES airports(AirportCode)
);
INSERT INTO airlines VALUES (1, 'United Airlines', 'UAL', 'USA'), (2, 'US Airways', 'USAir', 'USA'), (3, 'Delta Airlines', 'Delta', 'USA'), (4, 'JetBlue Airways', 'JetBlue', 'USA'), (5, 'Virgin America', 'Virgin', 'USA');
INSERT INTO airports VALUES ('Aberdeen', 'APG', 'Phillips AAF', 'United States', 'US'), ('Aberdeen', 'ABR', 'Municipal', 'United States', 'US'), ('Abilene', 'DYS', 'Dyess AFB', 'United States', 'US'), ('Ashley', 'ASY', 'Ashley', 'United States', 'US'), ('Anthony', 'ANY', 'Anthony', 'United States', 'US'), ('Corvallis', 'CVO', 'Municipal', 'United States', 'US'), ('Alton', 'ALN', 'Alton', 'United States', 'US');
INSERT INTO flights VALUES (1, 28, 'APG', 'ASY'), (1, 29, 'ASY', 'APG'), (1, 44, 'CVO', 'ABR'), (2, 45, 'ABR', 'CVO'), (2, 54, 'APG', 'DYS'), (3, 55, 'DYS', 'APG'), (4, 90, 'CVO', 'ANY'), (4, 91, 'ANY', 'CVO'), (4, 108, 'APG', 'ALN'), (5, 109, 'ALN', 'ASY');

-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "stadium" (
"Stadium_ID" int,
"Location" text,
"Name" text,
"Capacity" int,
"Highest" int,
"Lowest" int,
"Average" int,
PRIMARY KEY ("Stadium_ID")
);
CREATE TABLE IF NOT EXISTS "singer" (
"Singer_ID" int,
"Name" text,
"Country" text,
"Song_Name" text,
"Song_release_year" text,
"Age" int,
"Is_male" bool,
PRIMARY KEY ("Singer_ID")
);
CREATE TABLE IF NOT EXISTS "concert" (
"concert_ID" int,
"concert_Name" text,
"Theme" text,
"Stadium_ID" text,
"Year" text,
PRIMARY KEY ("concert_ID"),
FOREIGN KEY ("Stadium_ID") REFERENCES "stadium"("Stadium_ID")
);
CREATE TABLE IF NOT EXISTS "singer_in_concert" (
"concert_ID" int,
"Singer_ID" text,
PRIMARY KEY ("concert_ID","Singer_ID"),
FOREIGN KEY ("concert_ID") REFERENCES "concert"("concert_ID"),
FOREIGN KEY ("Singer_ID") REFERENCES "singer"("Singer_ID")
);
INSERT INTO stadium VALUES (1, 'Raith Rovers', 'Stark''s Park', 10104, 4812, 1294, 2106), (2, 'Ayr United', 'Somerset Park', 11998, 2363, 1057, 1477), (3, 'East Fife', 'Bayview Stadium', 2000, 1980, 533, 864), (4, 'Queen''s Park', 'Hampden Park', 52500, 1763, 466, 730), (5, 'Stirling Albion', 'Forthbank Stadium', 3808, 1125, 404, 642), (6, 'Arbroath', 'Gayfield Park', 4125, 921, 411, 638);
INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 'You', '1992', 52, 'F'), (2, 'Timbaland', 'United States', 'Dangerous', '2008', 32, 'T'), (3, 'Justin Brown', 'France', 'Hey Oh', '2013', 29, 'T'), (4, 'Rose White', 'France', 'Sun', '2003', 41, 'F'), (5, 'John Nizinik', 'France', 'Gentleman', '2014', 43, 'T'), (6, 'Tribal King', 'France', 'Love', '2016', 25, 'T');
INSERT INTO concert VALUES (1, 'Auditions', 'Free choice', '1', '2014'), (2, 'Super bootcamp', 'Free choice 2', '2', '2014'), (3, 'Home Visits', 'Bleeding Love', '2', '2015'), (4, 'Week 1', 'Wide Awake', '4', '2014'), (5, 'Week 1', 'Happy Tonight', '5', '2015'), (6, 'Week 2', 'Party All Night', '5', '2015');
INSERT INTO singer_in_concert VALUES (1, '2'), (1, '3'), (1, '5'), (2, '3'), (2, '6'), (3, '5'), (4, '4'), (5, '6'), (5, '3'), (6, '2');

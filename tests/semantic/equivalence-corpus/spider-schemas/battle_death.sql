-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "battle" (
"id" int,
"name" text,
"date" text,
"bulgarian_commander" text,
"latin_commander" text,
"result" text,
primary key("id")
);
CREATE TABLE IF NOT EXISTS "ship" (
"lost_in_battle" int,
"id" int,
"name" text,
"tonnage" text,
"ship_type" text,
"location" text,
"disposition_of_ship" text,
primary key("id"),
foreign key (`lost_in_battle`) references `battle`("id") 
);
CREATE TABLE IF NOT EXISTS "death" (
"caused_by_ship_id" int,
"id" int,
"note" text,
"killed" int,
"injured" int,
primary key("id"),
foreign key ("caused_by_ship_id") references `ship`("id") 
);
INSERT INTO battle VALUES (1, 'Battle of Adrianople', '14 April 1205', 'Kaloyan', 'Baldwin I', 'Bulgarian victory'), (2, 'Battle of Serres', 'June 1205', 'Kaloyan', 'Unknown', 'Bulgarian victory'), (3, 'Battle of Rusion', '31 January 1206', 'Kaloyan', 'Thierry de Termond', 'Bulgarian victory'), (4, 'Battle of Messinopolis', '4 September 1207', 'Unknown', 'Boniface of Montferrat', 'Bulgarian victory'), (5, 'Battle of Boruy', 'June 1205', 'Boril', 'Henry I', 'Latin victory');
INSERT INTO ship VALUES (1, 1, 'Lettice', 't', 'Brig', 'English Channel', 'Captured'), (2, 2, 'Bon Accord', 't', 'Brig', 'English Channel', 'Captured'), (4, 3, 'Mary', '225', 'Brig', 'East Channel', 'Wrecked'), (4, 4, 'HMS Atalanta', '225', '8 gun Brig', 'Mid-Atlantic', 'Sank'), (5, 5, 'Three Brothers', '91', 'Brig', 'English Channel', 'Captured');
INSERT INTO death VALUES (1, 1, 'Dantewada', 8, 0), (2, 2, 'East Champaran', 2, 9), (2, 3, 'Gajapati', 4, 12), (3, 4, 'East Godavari', 7, 3), (4, 5, 'Khammam', 3, 4), (5, 6, 'Dantewada', 0, 1), (4, 7, 'West Champaran', 5, 5);

-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "TV_Channel" (
"id" text,
"series_name" text,
"Country" text,
"Language" text,
"Content" text,
"Pixel_aspect_ratio_PAR" text,
"Hight_definition_TV" text,
"Pay_per_view_PPV" text,
"Package_Option" text,
PRIMARY KEY ("id")
);
CREATE TABLE IF NOT EXISTS "TV_series" (
"id" real,
"Episode" text,
"Air_Date" text,
"Rating" text,
"Share" real,
"18_49_Rating_Share" text,
"Viewers_m" text,
"Weekly_Rank" real,
"Channel" text,
PRIMARY KEY ("id"),
FOREIGN KEY (`Channel`) REFERENCES `TV_Channel`(`id`)
);
CREATE TABLE IF NOT EXISTS "Cartoon" (
"id" real,
"Title" text,
"Directed_by" text,
"Written_by" text,
"Original_air_date" text,
"Production_code" real,
"Channel" text,
PRIMARY KEY ("id"),
FOREIGN KEY (`Channel`) REFERENCES `TV_Channel`(`id`)
);
INSERT INTO TV_Channel VALUES ('700', 'Sky Radio', 'Italy', 'Italian', 'music', '4:3', 'no', 'no', 'Sky Famiglia'), ('701', 'Sky Music', 'Italy', 'Italian', 'music', '4:3', 'no', 'no', 'Sky Famiglia'), ('703', 'Music Box Italia', 'Italy', 'Italian', 'music', '4:3 / 16:9', 'no', 'no', 'Sky Famiglia'), ('717', 'MTV Hits', 'United Kingdom', 'English', 'music', '16:9', 'yes', 'no', 'Sky Famiglia'), ('719', 'MTV Classic', 'United Kingdom', 'English', 'music', '4:3', 'no', 'no', 'Sky Famiglia + Sky HD'), ('728', 'Radio Capital TV', 'Poland', 'English', 'music', '4:3', 'yes', 'no', 'no option');
INSERT INTO TV_series VALUES (1.0, 'A Love of a Lifetime', 'September 24, 2007', '5.8', 9.0, '3.5/9', '9.16', 43.0, '700'), (2.0, 'Friendly Skies', 'October 1, 2007', '5.3', 9.0, '3.2/8', '8.23', 50.0, '701'), (3.0, 'Game Three', 'October 8, 2007', '4.4', 7.0, '2.9/7', '6.94', 61.0, '717'), (4.0, 'The Year of the Rabbit', 'October 15, 2007', '4.3', 7.0, '2.7/7', '6.75', 67.0, '717'), (5.0, 'Double Down', 'October 29, 2007', '3.5', 6.0, '2.2/6', '5.16', 94.0, '728');
INSERT INTO Cartoon VALUES (1.0, 'The Rise of the Blue Beetle!', 'Ben Jones', 'Michael Jelenic', 'November14,2008', 101.0, '700'), (2.0, 'Terror on Dinosaur Island!', 'Brandon Vietti', 'Steven Melching', 'November21,2008', 102.0, '701'), (3.0, 'Evil Under the Sea!', 'Brandon Vietti', 'Joseph Kuhr', 'December5,2008', 103.0, '703'), (4.0, 'Day of the Dark Knight!', 'Michael Chang', 'J. M. DeMatteis', 'January2,2009', 104.0, '717'), (5.0, 'Invasion of the Secret Santas!', 'Ben Jones', 'Todd Casey', 'December12,2008', 105.0, '717'), (6.0, 'Deep Cover for Batman!', 'Michael Chang', 'Joseph Kuhr', 'February6,2009', 106.0, '728');

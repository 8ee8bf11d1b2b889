-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
CREATE TABLE IF NOT EXISTS "course" (
"Course_ID" int,
"Staring_Date" text,
"Course" text,
PRIMARY KEY ("Course_ID")
);
CREATE TABLE IF NOT EXISTS "teacher" (
"Teacher_ID" int,
"Name" text,
"Age" text,
"Hometown" text,
PRIMARY KEY ("Teacher_ID")
);
CREATE TABLE IF NOT EXISTS "course_arrange" (
"Course_ID" int,
"Teacher_ID" int,
"Grade" int,
PRIMARY KEY ("Course_ID","Teacher_ID","Grade"),
FOREIGN KEY ("Course_ID") REFERENCES `course`("Course_ID"),
FOREIGN KEY ("Teacher_ID") REFERENCES `teacher`("Teacher_ID")
);
INSERT INTO course VALUES (1, '5 May', 'Language Arts'), (2, '6 May', 'Math'), (3, '7 May', 'Science'), (4, '9 May', 'History'), (5, '10 May', 'Bible');
INSERT INTO teacher VALUES (1, 'Joseph Huts', '32', 'Blackrod Urban District'), (2, 'Gustaaf Deloor', '29', 'Bolton County Borough'), (3, 'Vicente Carretero', '26', 'Farnworth Municipal Borough'), (4, 'John Deloor', '33', 'Horwich Urban District'), (5, 'Kearsley Brown', '45', 'Little Lever Urban District'), (6, 'Anne Walker', '41', 'Bolton County Borough');
INSERT INTO course_arrange VALUES (2, 5, 1), (2, 3, 3), (3, 2, 5), (4, 6, 7), (5, 6, 1), (1, 3, 2);

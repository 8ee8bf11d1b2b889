-- The schema of the Spider dev database of the same name (Yu et al., 2018), reproduced; the rows are
-- our own, with the same storage classes, NULLs in the same columns (none here unless stated) and
-- intact foreign keys. Built into a temporary SQLite file by the equivalence-corpus test.
-- As in the original, Documents.Other_Details and Paragraphs.Other_Details hold only NULL.
CREATE TABLE Ref_Template_Types (
Template_Type_Code CHAR(15) NOT NULL,
Template_Type_Description VARCHAR(255) NOT NULL,
PRIMARY KEY (Template_Type_Code)
);
CREATE TABLE Templates (
Template_ID INTEGER NOT NULL,
Version_Number INTEGER NOT NULL,
Template_Type_Code CHAR(15) NOT NULL,
Date_Effective_From DATETIME,
Date_Effective_To DATETIME,
Template_Details VARCHAR(255) NOT NULL,
PRIMARY KEY (Template_ID),
FOREIGN KEY (Template_Type_Code) REFERENCES Ref_Template_Types (Template_Type_Code)
);
CREATE TABLE Documents (
Document_ID INTEGER NOT NULL,
Template_ID INTEGER,
Document_Name VARCHAR(255),
Document_Description VARCHAR(255),
Other_Details VARCHAR(255),
PRIMARY KEY (Document_ID),
FOREIGN KEY (Template_ID) REFERENCES Templates (Template_ID)
);
CREATE TABLE Paragraphs (
Paragraph_ID INTEGER NOT NULL,
Document_ID INTEGER NOT NULL,
Paragraph_Text VARCHAR(255),
Other_Details VARCHAR(255),
PRIMARY KEY (Paragraph_ID),
FOREIGN KEY (Document_ID) REFERENCES Documents (Document_ID)
);
INSERT INTO Ref_Template_Types VALUES ('PPT', 'Presentation'), ('CV', 'CV'), ('AD', 'Advertisement'), ('PP', 'Paper'), ('BK', 'Book');
INSERT INTO Templates VALUES (0, 5, 'PP', '2005-11-12 07:09:48', '2008-01-05 14:19:28', ''), (1, 9, 'PP', '2010-09-24 01:15:11', '1999-07-08 03:31:04', ''), (4, 4, 'BK', '2002-03-02 14:39:49', '2001-04-18 09:29:52', ''), (6, 2, 'PPT', '1975-05-20 22:51:19', '1992-05-02 20:06:11', ''), (7, 8, 'PPT', '1993-10-07 02:33:04', '1975-07-16 04:52:10', ''), (8, 3, 'BK', '1983-07-16 21:16:16', '1976-10-28 10:08:50', ''), (9, 2, 'CV', '1997-04-17 08:29:44', '1994-12-07 13:26:23', '');
INSERT INTO Documents VALUES (0, 7, 'Introduction of OS', 'n', NULL), (1, 4, 'Understanding DB', 'y', NULL), (3, 6, 'Summer Show', 'u', NULL), (76, 7, 'Robbin CV', 'y', NULL), (80, 4, 'Welcome to NY', 'h', NULL), (82, 9, 'Data base', 'w', NULL), (2394, 6, 'Customer reviews', 'y', NULL);
INSERT INTO Paragraphs VALUES (7, 2394, 'Korea', NULL), (9, 3, 'Somalia', NULL), (65, 80, 'Palestinian Territory', NULL), (241, 80, 'Jersey', NULL), (3708, 80, 'UK', NULL), (9946, 2394, 'Fiji', NULL), (16615, 76, 'Japan', NULL), (1104059, 2394, 'Brazil', NULL), (280120913, 2394, 'Ireland', NULL);

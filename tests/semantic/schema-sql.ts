/** Schemas shared by the semantic tests (each a SQL script for `createTempSqlite`). */

/** Every constraint kind the generator must honour, a cycle and a self-reference. */
export const CONSTRAINT_SCHEMA = `
CREATE TABLE dept (
  dept_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  budget REAL CHECK (budget >= 0),
  head_id INTEGER REFERENCES emp(emp_id)
);
CREATE TABLE emp (
  emp_id INTEGER PRIMARY KEY,
  dept_id INTEGER NOT NULL REFERENCES dept,
  manager_id INTEGER REFERENCES emp(emp_id),
  email TEXT NOT NULL,
  grade TEXT CHECK (grade IN ('A', 'B', 'C')),
  salary INTEGER NOT NULL CHECK (salary BETWEEN 1000 AND 9000),
  hired TEXT,
  code TEXT GENERATED ALWAYS AS (upper(email)) VIRTUAL
);
CREATE UNIQUE INDEX emp_email ON emp(email);
CREATE UNIQUE INDEX emp_lower_email ON emp(lower(email));
CREATE INDEX emp_dept ON emp(dept_id);
CREATE TABLE project (
  dept_id INTEGER NOT NULL,
  code TEXT NOT NULL,
  title TEXT,
  PRIMARY KEY (dept_id, code),
  FOREIGN KEY (dept_id) REFERENCES dept(dept_id)
) WITHOUT ROWID;
CREATE TABLE assignment (
  emp_id INTEGER NOT NULL REFERENCES emp(emp_id),
  dept_id INTEGER NOT NULL,
  code TEXT NOT NULL,
  hours INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (dept_id, code) REFERENCES project(dept_id, code),
  UNIQUE (emp_id, dept_id, code)
);
CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  ghost_id INTEGER REFERENCES ghost(id),
  note TEXT
) STRICT;
CREATE VIEW v_emp AS SELECT e.emp_id, d.name AS dept FROM emp e JOIN dept d ON d.dept_id = e.dept_id;
CREATE TRIGGER project_touch AFTER UPDATE ON project BEGIN SELECT 1; END;
INSERT INTO dept VALUES (1, 'Research', 1000.5, NULL), (2, 'Sales', 250.0, NULL);
INSERT INTO emp (emp_id, dept_id, manager_id, email, grade, salary, hired) VALUES
  (1, 1, NULL, 'ada@example.com', 'A', 5000, '2020-01-15'),
  (2, 1, 1, 'bob@example.com', 'B', 3000, '2021-03-01'),
  (3, 2, 1, 'cy@example.com', NULL, 2500, '2022-07-30');
UPDATE dept SET head_id = 1 WHERE dept_id = 1;
INSERT INTO project VALUES (1, 'P1', 'Engine'), (2, 'S1', 'Leads');
INSERT INTO assignment VALUES (2, 1, 'P1', 10), (3, 2, 'S1', 5);
`;

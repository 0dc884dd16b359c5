CREATE ALIAS add_exact FOR "java.lang.Math.addExact(long, long)";
CREATE ALIAS hypot FOR "java.lang.Math.hypot";
CREATE AGGREGATE count_all FOR "io.macrodb.server.PsqlTest$CountAll";
CREATE DOMAIN email AS VARCHAR(80) CHECK (VALUE LIKE '%@%');
CREATE DOMAIN qty AS INT;
CREATE SCHEMA other;
CREATE DOMAIN other.code AS CHAR(3);
CREATE TABLE contacts (id INT PRIMARY KEY, mail email, n qty);
\df
\df+
\df add*
\dfa
\dfn
\dfp
\dT
\dT+
\dT other.*
\dT e*

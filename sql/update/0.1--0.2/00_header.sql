-- nddup upgrade script 0.1 -> 0.2, assembled from sql/update/0.1--0.2/*.sql
-- and the fragments of sql/install that are wholly new since 0.1 (the
-- Makefile's UPDATE_NEW_PARTS), in file-name order (one fragment per
-- change).  Every change to the SQL surface of sql/install/ comes with its
-- fragment here or in that list; test/t/004_upgrade.pl checks that an
-- updated 0.1 installation equals a fresh 0.2 one.

\echo Use "ALTER EXTENSION nddup UPDATE TO '0.2'" to load this file. \quit

--
-- The settings exist once the library is loaded into the session, as
-- contrib's do (docs/reference.md#settings)
--
\c
-- a new session: not defined yet
SELECT current_setting('nddup.similarity_threshold', true) AS before_load;
-- SET before the load is kept, and checked when the library loads
SET nddup.similarity_threshold = 0.6;
SELECT nddup_unicode_version() IS NOT NULL AS loaded;
SHOW nddup.similarity_threshold;
\c
SET nddup.similarity_threshold = 5;
SELECT nddup_unicode_version() IS NOT NULL AS loaded;
SHOW nddup.similarity_threshold;
-- loaded: its prefix is reserved, a misspelt setting is an error
SET nddup.similarity_treshold = 0.5;
\c
SELECT nddup_unicode_version() IS NOT NULL AS loaded;
SHOW nddup.similarity_threshold;

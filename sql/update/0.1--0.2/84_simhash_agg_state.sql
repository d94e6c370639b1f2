-- simhash_agg: the state becomes a type of its own (Citus aggregates it on
-- the workers); the 0.1 aggregate and its internal-state
-- functions are dropped; sql/install/85_scale_out.sql creates the new ones.
DROP AGGREGATE @extschema@.simhash_agg(text, double precision);
DROP FUNCTION @extschema@.simhash_agg_transfn(internal, text, double precision);
DROP FUNCTION @extschema@.simhash_agg_combinefn(internal, internal);
DROP FUNCTION @extschema@.simhash_agg_serialfn(internal);
DROP FUNCTION @extschema@.simhash_agg_deserialfn(bytea, internal);
DROP FUNCTION @extschema@.simhash_agg_finalfn(internal);

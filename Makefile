# nddup: near-duplicate detection for PostgreSQL (PGXS build)
#
# src/core     the pure-C core (no PostgreSQL include): text pipeline, hashes,
#              simhash, min-hash, text/binary forms; built and tested alone
# src/types    the SQL types and their functions
# src/index    operator classes and planner support
# src/batch    set-returning batch functions (pairs, joins, clusters): the
#              shared layer (call, rows, sorting, partitions, union-find,
#              verification), and one folder a method: hamming/, sets/,
#              sketch/
# src/trigger  the insert-time trigger
# src/citus    Citus: distributed batch functions, key functions, the
#              cluster-wide insert check nddup_original()
# src/module.c module entry point and settings

EXTENSION = nddup
EXTVERSION = 0.2
MODULE_big = nddup
SRC_DIRS = src/core src/types src/index src/batch src/batch/hamming src/batch/sets \
	src/batch/sketch src/trigger src/citus
OBJS = src/module.o $(patsubst %.c,%.o,$(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))))

# The install script of the current version is assembled from the fragments
# in sql/install, in file-name order, and the upgrade script from the
# previous release from those in sql/update/0.1--0.2.  Released versions'
# scripts are kept as they shipped (sql/nddup--0.1.sql).
DATA = sql/$(EXTENSION)--0.1.sql
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql sql/$(EXTENSION)--0.1--$(EXTVERSION).sql
INSTALL_PARTS = $(sort $(wildcard sql/install/*.sql))
UPDATE_DIR = sql/update/0.1--$(EXTVERSION)
# Fragments of sql/install that are wholly new since 0.1 go into the upgrade
# script as they are, in file-name order among those of $(UPDATE_DIR).
UPDATE_NEW_PARTS = 45_hamming_am 67_batch_sets 72_shingle_filter 77_recommend 78_explain \
	79_calibrate 85_scale_out 86_original_routed 90_names 95_comments
UPDATE_PARTS = $(sort $(wildcard $(UPDATE_DIR)/*.sql)) \
	$(foreach f,$(UPDATE_NEW_PARTS),sql/install/$(f).sql)

# The regression tests, as in contrib: sql/NAME.sql against expected/NAME.out,
# every such file (not the install scripts), in name order (scripts/test.sh
# runs the same list).
REGRESS = $(filter-out $(EXTENSION)--%,$(basename $(notdir $(sort $(wildcard sql/*.sql)))))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)

# `make installcheck` runs, against the installed extension, the regression
# tests, the isolation tests (test/isolation/specs, every spec in name order)
# and the TAP tests (test/t), as PGXS projects do; scripts/test.sh runs the
# same three on private temporary instances, with the other suites.
ISOLATION = $(basename $(notdir $(sort $(wildcard test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=$(EXTENSION)
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -O2
EXTRA_CLEAN = test/unit/test_core test/unit/test_core_scalar test/unit/*.o

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/$(EXTENSION)--$(EXTVERSION).sql: $(INSTALL_PARTS)
	cat $^ > $@

sql/$(EXTENSION)--0.1--$(EXTVERSION).sql: $(UPDATE_PARTS)
	for f in $(sort $(notdir $^)); do \
		if [ -f $(UPDATE_DIR)/$$f ]; then cat $(UPDATE_DIR)/$$f; else cat sql/install/$$f; fi; \
	done > $@

# Print the regression test list (scripts/test.sh).
print-regress:
	@echo $(REGRESS)

# Pure-C core unit tests, built outside the server with sanitizers; a second
# build without the SIMD code paths runs the simhash and one-pass suites.
CORE_SRCS = $(sort $(wildcard src/core/*.c))
UNIT_SRCS = $(sort $(wildcard test/unit/test_*.c))
UNIT_CFLAGS = -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Isrc/core -Itest/unit
unit: $(CORE_SRCS) $(UNIT_SRCS) test/unit/unit_test.h src/core/nddup_core.h
	$(CC) $(UNIT_CFLAGS) -o test/unit/test_core $(UNIT_SRCS) $(CORE_SRCS) -lm
	$(CC) $(UNIT_CFLAGS) -DNDDUP_NO_SIMD -o test/unit/test_core_scalar $(UNIT_SRCS) $(CORE_SRCS) -lm
	./test/unit/test_core
	./test/unit/test_core_scalar scan

.PHONY: unit print-regress

# every object depends on every header (the shared ones, each folder's own,
# the generated tables)
$(OBJS): $(wildcard src/*.h src/*/*.h src/*/*/*.h)

# The release tarball, nddup-VERSION.tar.gz (VERSION from META.json), made
# by git archive from DIST_REF (default HEAD): what PGXN and
# scripts/package.sh take.
DIST_REF ?= HEAD
DISTVERSION = $(shell python3 -c 'import json; print(json.load(open("$(srcdir)/META.json"))["version"])')
dist:
	git -C $(srcdir) archive --format=tar.gz --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(CURDIR)/$(EXTENSION)-$(DISTVERSION).tar.gz $(DIST_REF)

.PHONY: dist

# nddup: near-duplicate detection for PostgreSQL (PGXS build)

EXTENSION = nddup
EXTVERSION = 0.1
MODULE_big = nddup
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))

# The install script is assembled from the fragments in sql/install, in
# file-name order; the regression tests are every other sql/*.sql.
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
INSTALL_PARTS = $(sort $(wildcard sql/install/*.sql))
REGRESS = $(filter-out $(EXTENSION)--%,$(basename $(notdir $(sort $(wildcard sql/*.sql)))))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -O2
EXTRA_CLEAN = test/unit/test_core test/unit/test_core_scalar test/unit/*.o

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/$(EXTENSION)--$(EXTVERSION).sql: $(INSTALL_PARTS)
	cat $^ > $@

# Pure-C core unit tests, built outside the server with sanitizers; a second
# build without the SIMD code paths runs the simhash and one-pass suites.
CORE_SRCS = src/buffers.c src/normalize.c src/tokenize.c src/simhash.c src/minhash.c \
	src/simhash_format.c src/sketch_format.c src/imatch_format.c src/trigger_options.c
UNIT_SRCS = test/unit/test_core.c test/unit/test_text.c test/unit/test_minhash.c test/unit/test_scan.c \
	test/unit/test_format.c
UNIT_CFLAGS = -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Isrc -Itest/unit
unit: $(CORE_SRCS) $(UNIT_SRCS) test/unit/unit_test.h src/nddup.h
	$(CC) $(UNIT_CFLAGS) -o test/unit/test_core $(UNIT_SRCS) $(CORE_SRCS) -lm
	$(CC) $(UNIT_CFLAGS) -DNDDUP_NO_SIMD -o test/unit/test_core_scalar $(UNIT_SRCS) $(CORE_SRCS) -lm
	./test/unit/test_core
	./test/unit/test_core_scalar scan

.PHONY: unit

# every object depends on the shared header and the generated tables
$(OBJS): src/nddup.h src/unicode_tables.h src/html_entities.h

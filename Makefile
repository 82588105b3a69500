# Convenience targets around cargo. `make install` installs the shared and static library, the
# header and contact_solvers.pc with cargo-c (pinned: cargo install cargo-c --version 0.10.24 --locked):
#   make install PREFIX=$HOME/.local          (then: pkg-config --cflags --libs contact_solvers)
#   make install PREFIX=/usr DESTDIR=stage  (staged install, for packaging)
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
CARGO ?= cargo

.PHONY: all install examples test

all:
	$(CARGO) build --release

install:
	$(CARGO) cinstall --release --prefix=$(PREFIX) --libdir=$(LIBDIR) $(if $(DESTDIR),--destdir=$(DESTDIR))

examples:
	examples_c/run_examples.sh

test:
	$(CARGO) test

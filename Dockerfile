# irtbridge with both runtimes pinned, built by the same tools/setup.sh that CI runs.
#   docker build -t irtbridge .
#   docker run --rm -v "$PWD/out:/work/out" irtbridge evaluate --out /work/out
# Where Docker Hub or snapshot.debian.org cannot be reached (tools/container-test.sh does this with buildah):
#   --build-arg BASE=<a local bookworm image> --build-arg APT_MIRROR=<a reachable bookworm mirror URL>
#   --build-arg CRAN=<a CRAN mirror>
# Base image by dated tag; Debian packages from the snapshot of the same day, so apt versions stay fixed.
# R and rpy2 are pinned by version whatever the apt source.
ARG BASE=debian:bookworm-20250520

# -- build stage: compilers, the CRAN packages of the lock file built from source ----------------------------
FROM ${BASE} AS build
ARG SNAPSHOT=20250520T000000Z
ARG APT_MIRROR=
ARG CRAN=https://cloud.r-project.org
# a CA bundle to trust for the CRAN downloads, mounted at build time where TLS is intercepted (optional)
ARG HOST_CA=
COPY tools/apt-sources.sh /tmp/apt-sources.sh
RUN sh /tmp/apt-sources.sh "$SNAPSHOT" "$APT_MIRROR" \
 && apt-get -o Acquire::Check-Valid-Until=false update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        r-base-core=4.2.2.20221110-2 python3-rpy2=3.5.9-1 make
WORKDIR /opt/irtbridge
# only the lock, the R installer and the setup script: this layer (the slow CRAN builds) is rebuilt when they
# change, not on every change of the Python or R sources
COPY irtbridge/_r/R/packages.lock irtbridge/_r/R/
COPY r/install.R r/
COPY tools/setup.sh tools/setup.sh
RUN if [ -n "$HOST_CA" ]; then export CURL_CA_BUNDLE="$HOST_CA" SSL_CERT_FILE="$HOST_CA"; fi \
 && IRTBRIDGE_CRAN="$CRAN" bash tools/setup.sh --r-library \
 && rm -rf /var/lib/apt/lists/*

# -- final stage: the runtimes and the built R library, no compilers or -dev packages ---------------------
FROM ${BASE}
ARG SNAPSHOT=20250520T000000Z
ARG APT_MIRROR=
COPY tools/apt-sources.sh /tmp/apt-sources.sh
RUN sh /tmp/apt-sources.sh "$SNAPSHOT" "$APT_MIRROR" \
 && apt-get -o Acquire::Check-Valid-Until=false update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        r-base-core=4.2.2.20221110-2 python3-rpy2=3.5.9-1 \
 && rm -rf /var/lib/apt/lists/*
# Debian's python3-scipy declares python3-pythran, a compiler that pulls g++, Boost and -dev packages; scipy
# runs without it, so a placeholder package (held) stands in for it and keeps compilers out of this layer
RUN mkdir -p /tmp/placeholder/DEBIAN \
 && printf '%s\n' 'Package: python3-pythran' 'Version: 0.0~irtbridge' 'Architecture: all' \
      'Maintainer: irtbridge <irtbridge@localhost>' \
      'Description: placeholder for the Pythran compiler (not needed to run scipy)' \
      > /tmp/placeholder/DEBIAN/control \
 && dpkg-deb --build /tmp/placeholder /tmp/python3-pythran.deb >/dev/null \
 && dpkg -i /tmp/python3-pythran.deb && apt-mark hold python3-pythran \
 && rm -rf /tmp/placeholder /tmp/python3-pythran.deb
COPY --from=build /usr/local/lib/R/site-library /usr/local/lib/R/site-library
WORKDIR /opt/irtbridge
COPY . .
RUN apt-get -o Acquire::Check-Valid-Until=false update -q \
 && bash tools/setup.sh --runtime \
 && touch .venv/.irtbridge-setup \
 && rm -rf /var/lib/apt/lists/* /root/.cache

ENV PATH="/opt/irtbridge/.venv/bin:${PATH}" MPLBACKEND=Agg
WORKDIR /work
ENTRYPOINT ["irtbridge"]
CMD ["--help"]

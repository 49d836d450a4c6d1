# irtbridge with both runtimes pinned. A thin wrapper over scripts/setup.sh, the same script CI runs:
#   docker build -t irtbridge .
#   docker run --rm -v "$PWD/out:/work/out" irtbridge evaluate --out /work/out
# Base image by dated tag; Debian packages from the snapshot of the same day, so apt versions stay fixed.
FROM debian:bookworm-20250520

ARG SNAPSHOT=20250520T000000Z
RUN printf 'deb http://snapshot.debian.org/archive/debian/%s bookworm main\ndeb http://snapshot.debian.org/archive/debian-security/%s bookworm-security main\n' \
        "$SNAPSHOT" "$SNAPSHOT" > /etc/apt/sources.list \
 && rm -f /etc/apt/sources.list.d/debian.sources \
 && apt-get -o Acquire::Check-Valid-Until=false update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        r-base-core=4.2.2.20221110-2 python3-rpy2=3.5.9-1 make \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/irtbridge
COPY . .
# the rest of the apt packages, the CRAN packages pinned in r/packages.lock, .venv and the editable install
RUN apt-get -o Acquire::Check-Valid-Until=false update -q \
 && bash scripts/setup.sh \
 && touch .venv/.irtbridge-setup \
 && rm -rf /var/lib/apt/lists/*

ENV PATH="/opt/irtbridge/.venv/bin:${PATH}" MPLBACKEND=Agg
WORKDIR /work
ENTRYPOINT ["irtbridge"]
CMD ["--help"]

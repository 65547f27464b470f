# Sigil in one image: the sigil binary on a distroless base, running as a non-root user. The default command runs
# the services for a deployment: the dev chain left out (--dev-chain=false), listening on every interface behind a TLS
# proxy (--expose), or with TLS of its own (add --tls-cert and --tls-key, the files mounted read-only). Set
# SIGIL_DATABASE_URL for PostgreSQL; without it the SQLite database lives in the /var/lib/sigil volume.
# The whole dev stack, dev chain included, on the host's loopback where a dev stack listens (README: Start-up):
#   docker run --rm --network host -v sigil-dev:/var/lib/sigil sigil up --dir /var/lib/sigil
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/sigil ./cmd/sigil && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sigil /usr/local/bin/sigil
COPY --from=build --chown=nonroot:nonroot /out/data /var/lib/sigil
USER nonroot:nonroot
WORKDIR /var/lib/sigil
VOLUME ["/var/lib/sigil"]
# coordinator, auth proxy, yield service (when run), dashboard
EXPOSE 8081 8082 8083 8084
ENTRYPOINT ["/usr/local/bin/sigil"]
CMD ["up", "--dir", "/var/lib/sigil", "--dev-chain=false", "--expose", "--listen", "0.0.0.0:8081", "--authproxy-listen", "0.0.0.0:8082", "--dashboard-listen", "0.0.0.0:8084"]

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracingEndpoint is the OTLP endpoint the environment configures, or ""
// when tracing is off: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
// OTEL_EXPORTER_OTLP_ENDPOINT, unless OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none.
func tracingEndpoint() string {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return ""
	}
	if e := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// setupTracing returns a tracer provider that exports spans with
// OTLP over HTTP (protobuf) when an OTLP endpoint is configured, and nil
// (tracing off: no SDK, no exporter, no cost) otherwise. The exporter
// honours the standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers,
// timeout, compression, certificates), the provider OTEL_TRACES_SAMPLER(_ARG)
// and OTEL_BSP_*, the resource OTEL_SERVICE_NAME (default debtql) and
// OTEL_RESOURCE_ATTRIBUTES. It also becomes OpenTelemetry's global provider,
// with the W3C trace-context propagator. Shut it down to flush the spans.
func setupTracing(ctx context.Context, log *slog.Logger) (*sdktrace.TracerProvider, error) {
	endpoint := tracingEndpoint()
	if endpoint == "" {
		return nil, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: configuring the OTLP exporter (OTEL_EXPORTER_OTLP_*): %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "debtql")),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK(),
		resource.WithHost(),
	)
	if err != nil {
		return nil, fmt.Errorf("tracing: reading OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: exporting spans failed", "error", err.Error())
	}))
	log.Info("tracing is on: spans are exported with OTLP/HTTP", "endpoint", endpoint)
	return tp, nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"energy/apidocs/adviceclient"
	"energy/apidocs/client"
)

// defaultAPIURL is where energyd's main API listens when run with its defaults.
const defaultAPIURL = "http://127.0.0.1:8080"

// apiFlags are the flags of commands that talk to a running service.
type apiFlags struct {
	api   string
	token string
}

func (a *apiFlags) register(fs *flag.FlagSet) {
	api := os.Getenv("ENERGY_API_URL")
	if api == "" {
		api = defaultAPIURL
	}
	fs.StringVar(&a.api, "api", api, "base URL of the energyd main API (env ENERGY_API_URL)")
	fs.StringVar(&a.token, "token", os.Getenv("ENERGY_TOKEN"), "bearer token (env ENERGY_TOKEN)")
}

// apiClient calls the service through the clients generated from its committed descriptions
// (apidocs/client, apidocs/adviceclient), with a bearer token.
type apiClient struct {
	base   *url.URL // without a trailing slash
	token  string
	api    *client.ClientWithResponses       // the main API
	advice *adviceclient.ClientWithResponses // the recommendation API (its own listener)
	// poll is the first pause between two job polls; it grows to pollMax.
	poll, pollMax time.Duration
	// retryFor bounds how long polling goes on through an unreachable service or 5xx answers
	// (energyd restarting recovers the jobs).
	retryFor time.Duration
}

func newAPIClient(api, token string) (*apiClient, error) {
	u, err := url.Parse(strings.TrimRight(api, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--api %q is not an http(s) URL such as %s", api, defaultAPIURL)
	}
	hc := &http.Client{Timeout: 2 * time.Minute}
	authorize := func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Header.Set("Accept", "application/json")
		return nil
	}
	mainAPI, err := client.NewClientWithResponses(u.String(), client.WithHTTPClient(hc), client.WithRequestEditorFn(authorize))
	if err != nil {
		return nil, err
	}
	advice, err := adviceclient.NewClientWithResponses(u.String(), adviceclient.WithHTTPClient(hc), adviceclient.WithRequestEditorFn(authorize))
	if err != nil {
		return nil, err
	}
	return &apiClient{base: u, token: token, api: mainAPI, advice: advice,
		poll: 100 * time.Millisecond, pollMax: time.Second, retryFor: 2 * time.Minute}, nil
}

// apiError is an error answer of the service, with advice on what to do about it.
type apiError struct {
	Status      int
	Code        string
	Description string
	Advice      string
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Advice != "" {
		msg += " — " + e.Advice
	}
	return msg
}

// unreachableError is a request that got no HTTP answer.
type unreachableError struct {
	URL string
	Err error
}

func (e *unreachableError) Error() string {
	if errors.Is(e.Err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("cannot reach the service at %s: connection refused — is energyd running there? (set --api or ENERGY_API_URL)", e.URL)
	}
	var dns *net.DNSError
	if errors.As(e.Err, &dns) {
		return fmt.Sprintf("cannot reach the service at %s: unknown host %q (check --api or ENERGY_API_URL)", e.URL, dns.Name)
	}
	return fmt.Sprintf("cannot reach the service at %s: %v", e.URL, e.Err)
}

func (e *unreachableError) Unwrap() error { return e.Err }

// answer is what every ...WithResponse result of the generated clients has.
type answer interface {
	StatusCode() int
	GetBody() []byte
}

// outcome turns the result of a generated client's call into an error: none for a 2xx answer,
// an unreachableError when no answer came, an apiError (with advice on what to do) for an
// error answer. scope names what the operation needs, for the advice on 401/403.
func (c *apiClient) outcome(ctx context.Context, a answer, err error, scope string) error {
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			return &unreachableError{URL: c.base.String(), Err: err}
		}
		return fmt.Errorf("unreadable answer from %s: %w", c.base, err)
	}
	status, body := a.StatusCode(), a.GetBody()
	if status/100 == 2 {
		return nil
	}
	e := &apiError{Status: status}
	var eb struct {
		ErrorCode        string `json:"errorCode"`
		ErrorDescription string `json:"errorDescription"`
	}
	if json.Unmarshal(body, &eb) == nil {
		e.Code, e.Description = eb.ErrorCode, eb.ErrorDescription
	}
	switch status {
	case http.StatusUnauthorized:
		if c.token == "" {
			e.Advice = "no token given: pass --token or set ENERGY_TOKEN (create one with: energyctl token create --tenant TENANT --scopes " + scope + ")"
		} else {
			e.Advice = "check --token or ENERGY_TOKEN, or create a new token with: energyctl token create --tenant TENANT --scopes " + scope
		}
	case http.StatusForbidden:
		e.Advice = "the token lacks the scope this needs: use a token with the " + scope + " scope (or admin)"
	case http.StatusNotFound:
		if e.Code == "" || e.Code == "NOT_FOUND" {
			e.Advice = fmt.Sprintf("is %s the base URL of energyd's main API?", c.base)
		}
	case http.StatusServiceUnavailable:
		e.Advice = "the service's storage is unavailable; try again shortly"
	}
	if e.Code == "" && e.Description == "" && len(body) > 0 && status != http.StatusRequestEntityTooLarge {
		e.Description = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	return e
}

// retryable tells whether polling should go on after err: the service is unreachable or
// answered 5xx (it may be restarting; it recovers its jobs).
func retryable(err error) bool {
	var ue *unreachableError
	var ae *apiError
	return errors.As(err, &ue) || (errors.As(err, &ae) && ae.Status >= 500)
}

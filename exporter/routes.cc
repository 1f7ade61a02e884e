#include "exporter/routes.h"

#include "common/log.h"
#include "exporter/landing_page.h"
#include "exporter/scrape.h"

namespace rxe::exporter {
namespace {

constexpr const char* kPlain = "text/plain; charset=utf-8";

/// httplib route patterns are regular expressions.
std::string RegexEscape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

class InFlight {
 public:
  InFlight(std::atomic<int>& n, int max) : n_(n) { admitted_ = n_.fetch_add(1) < max || max == 0; }
  ~InFlight() { n_.fetch_sub(1); }
  bool admitted() const { return admitted_; }

 private:
  std::atomic<int>& n_;
  bool admitted_;
};

bool IsAdminPath(const std::string& path) {
  return path == "/-/reload" || path == "/debug/probes" || path == "/debug/ud_mesh";
}

void Unauthorized(httplib::Response& res) {
  res.status = 401;
  res.set_header("WWW-Authenticate", "Basic realm=\"rxe_exporter\", charset=\"UTF-8\"");
  res.set_content("Unauthorized\n", kPlain);
}

/// Runs `handler` if fewer than max_requests telemetry/admin requests are in flight, else 503.
template <typename F>
void Limited(const Endpoints& ep, httplib::Response& res, F handler) {
  InFlight guard(*ep.in_flight, ep.max_requests);
  if (!guard.admitted()) {
    res.status = 503;
    res.set_content("Too many concurrent requests, see --web.max-requests\n", kPlain);
    return;
  }
  handler();
}

void MethodNotAllowed(const httplib::Request&, httplib::Response& res) {
  res.status = 405;
  res.set_header("Allow", "POST");
  res.set_content("Only POST is allowed\n", kPlain);
}

}  // namespace

void InstallRoutes(httplib::Server& server, std::shared_ptr<const Endpoints> ep) {
  server.set_pre_routing_handler([ep](const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    if (req.path == "/-/healthy") return R::Unhandled;
    const bool enabled = ep->auth_enabled && ep->auth_enabled();
    if (IsAdminPath(req.path)) {
      AdminAuth mode = ep->admin_auth;
      if (mode == AdminAuth::kAuto) mode = enabled ? AdminAuth::kRequired : AdminAuth::kOpen;
      if (mode == AdminAuth::kOpen) return R::Unhandled;
      if (!enabled) {
        res.status = 403;
        res.set_content(req.path +
                            " needs basic auth: set basic_auth_users in --web.config.file, or "
                            "--web.admin-auth=false\n",
                        kPlain);
        return R::Handled;
      }
    }
    if (!enabled || ep->check_credentials(req.get_header_value("Authorization"))) {
      return R::Unhandled;
    }
    Unauthorized(res);
    return R::Handled;
  });

  if (ep->telemetry_path != "/") {
    server.Get("/", [ep](const httplib::Request&, httplib::Response& res) {
      res.set_content(LandingPageHtml(ep->telemetry_path), "text/html; charset=utf-8");
    });
  }
  server.Get(RegexEscape(ep->telemetry_path),
             [ep](const httplib::Request&, httplib::Response& res) {
               Limited(*ep, res, [&] { res.set_content(ep->metrics(), kTextContentType); });
             });
  server.Get("/-/healthy", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("Healthy\n", kPlain);
  });
  server.Get("/-/ready", [ep](const httplib::Request&, httplib::Response& res) {
    if (ep->ready()) {
      res.set_content("Ready\n", kPlain);
    } else {
      res.status = 503;
      res.set_content("Not ready\n", kPlain);
    }
  });
  // The content-reader form answers a bodyless POST without Content-Length
  // (`curl -X POST .../-/reload`) instead of waiting for a body until the timeout.
  server.Post("/-/reload", [ep](const httplib::Request& req, httplib::Response& res,
                                const httplib::ContentReader& body) {
    if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
      body([](const char*, size_t) { return true; });  // drain (bounded by the payload limit)
    }
    Limited(*ep, res, [&] {
      log::Info("reload requested over HTTP", {{"remote", req.remote_addr}});
      Status st = ep->reload();
      if (st.ok()) {
        res.set_content("Reloaded\n", kPlain);
      } else if (st.error().code == ErrorCode::kUnavailable) {
        res.status = 503;
        res.set_content(st.error().message + "\n", kPlain);
      } else {
        res.status = 500;
        res.set_content("failed to reload config: " + st.error().message + "\n", kPlain);
      }
    });
  });
  server.Get("/-/reload", MethodNotAllowed);
  server.Put("/-/reload", MethodNotAllowed);
  server.Delete("/-/reload", MethodNotAllowed);
  server.Get("/debug/probes", [ep](const httplib::Request&, httplib::Response& res) {
    Limited(*ep, res, [&] { res.set_content(ep->debug_probes(), "application/json"); });
  });
  server.Get("/debug/ud_mesh", [ep](const httplib::Request&, httplib::Response& res) {
    Limited(*ep, res, [&] { res.set_content(ep->debug_ud_mesh(), "application/json"); });
  });

  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty() || res.status != 404) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        res.set_content("404 page not found\n", kPlain);
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep_ptr) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(ep_ptr);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        log::Error("HTTP handler failed", {{"path", req.path}, {"err", what}});
        res.status = 500;
        res.set_content("internal error\n", kPlain);
      });
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    if (!log::Enabled(log::Level::kDebug)) return;
    log::Debug("http request", {{"method", req.method},
                                {"path", req.path},
                                {"status", std::to_string(res.status)},
                                {"remote", req.remote_addr}});
  });
}

}  // namespace rxe::exporter

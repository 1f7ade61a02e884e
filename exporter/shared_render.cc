#include "exporter/shared_render.h"

#include <exception>

namespace rxe::exporter {

SharedRender::Text SharedRender::Get() {
  std::shared_future<Text> joined;
  std::promise<Text> mine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (in_flight_.valid()) {
      joined = in_flight_;
      ++waiting_;
      ++stats_.coalesced;
    } else {
      in_flight_ = mine.get_future().share();
      ++stats_.renders;
    }
  }
  if (joined.valid()) {
    struct Done {
      SharedRender* self;
      ~Done() {
        std::lock_guard<std::mutex> lock(self->mu_);
        --self->waiting_;
      }
    } done{this};
    return joined.get();  // rethrows the leader's exception
  }
  Text text;
  std::exception_ptr error;
  try {
    text = std::make_shared<const std::string>(render_());
  } catch (...) {
    error = std::current_exception();
  }
  {
    // Closed before the result is published: a request arriving from now on renders afresh.
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_ = {};
  }
  if (error) {
    mine.set_exception(error);
    std::rethrow_exception(error);
  }
  mine.set_value(text);
  return text;
}

SharedRender::Stats SharedRender::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

int SharedRender::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

}  // namespace rxe::exporter

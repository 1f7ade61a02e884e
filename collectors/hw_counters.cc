#include "collectors/hw_counters.h"

#include <map>

#include "collectors/metric_builder.h"

namespace rxe::collectors {
namespace {

// HELP texts say what each counter means for an operator. Source of the
// semantics: drivers/infiniband/sw/rxe/rxe_hw_counters.c and the increment
// sites in rxe_{net,recv,resp,comp}.c (Linux 6.1/6.12).
const std::vector<HwCounterInfo> kKnown = {
    {"sent_pkts", "rxe_port_sent_packets_total",
     "RoCE packets sent by the port, including ACKs and read responses (hw counter sent_pkts)."},
    {"rcvd_pkts", "rxe_port_received_packets_total",
     "RoCE packets received and accepted after header/ICRC checks; packets failing the checks are "
     "dropped without a counter (hw counter rcvd_pkts)."},
    {"duplicate_request", "rxe_port_duplicate_requests_total",
     "Requests received with an already-seen PSN: the peer retransmitted, usually after loss or a "
     "timeout (hw counter duplicate_request)."},
    {"out_of_seq_request", "rxe_port_out_of_sequence_requests_total",
     "Requests received with a PSN beyond the expected one: packets were lost or reordered on the "
     "way in; a NAK is sent (hw counter out_of_seq_request)."},
    {"rcvd_rnr_err", "rxe_port_rnr_naks_received_total",
     "RNR NAKs received: the remote receiver had no receive buffer posted (hw counter rcvd_rnr_err)."},
    {"send_rnr_err", "rxe_port_rnr_naks_sent_total",
     "RNR NAKs sent: a local application was not posting receive buffers fast enough (hw counter "
     "send_rnr_err)."},
    {"rcvd_seq_err", "rxe_port_sequence_error_naks_received_total",
     "PSN sequence-error NAKs received: the peer saw a gap, i.e. our packets were lost or "
     "reordered (hw counter rcvd_seq_err)."},
    {"ack_deferred", "rxe_port_ack_deferred_total",
     "Response packets queued to the completer while it was busy (6.1) or all queued responses "
     "(6.12+); a load indicator (hw counter ack_deferred)."},
    {"retry_exceeded_err", "rxe_port_retry_exceeded_errors_total",
     "Work requests failed because the transport retry count was exhausted (IBV_WC_RETRY_EXC_ERR): "
     "persistent loss or an unreachable peer (hw counter retry_exceeded_err)."},
    {"retry_rnr_exceeded_err", "rxe_port_rnr_retry_exceeded_errors_total",
     "Work requests failed because the RNR retry count was exhausted: the receiver never posted a "
     "buffer (hw counter retry_rnr_exceeded_err)."},
    {"completer_retry_err", "rxe_port_completer_retries_total",
     "Retransmissions started by the requester after a timeout or NAK: each one means loss or "
     "delay on the path (hw counter completer_retry_err)."},
    {"send_err", "rxe_port_send_errors_total",
     "Packets the port failed to hand to the IP stack, e.g. no route or the netdev refused them "
     "(hw counter send_err)."},
    {"link_downed", "rxe_port_link_downed_total",
     "Times the port went DOWN because its netdev went down or lost carrier (hw counter link_downed)."},
    {"rdma_sends", "rxe_port_rdma_sends_total",
     "SEND work requests completed by the requester; RDMA WRITE and READ are not counted (hw counter "
     "rdma_sends)."},
    {"rdma_recvs", "rxe_port_rdma_receives_total",
     "Receive work requests completed successfully by the responder (SEND or WRITE with immediate) "
     "(hw counter rdma_recvs)."},
    {"sent_bytes", "rxe_port_sent_bytes_total",
     "Bytes sent by the port, including IP and UDP headers (hw counter sent_bytes, newer kernels)."},
    {"rcvd_bytes", "rxe_port_received_bytes_total",
     "Bytes received by the port, including IP and UDP headers (hw counter rcvd_bytes, newer "
     "kernels)."},
};

constexpr std::string_view kGenericMetric = "rxe_port_hw_stat_total";
constexpr std::string_view kGenericHelp =
    "RDMA hw counter without a curated name (other drivers, newer kernels); the kernel's name is "
    "in the counter label.";

}  // namespace

const std::vector<HwCounterInfo>& KnownHwCounters() { return kKnown; }

const HwCounterInfo* FindHwCounter(std::string_view kernel_name) {
  for (const auto& info : kKnown) {
    if (info.kernel_name == kernel_name) return &info;
  }
  return nullptr;
}

void AppendHwCounterFamilies(const std::vector<PortHwCounters>& ports,
                             std::vector<prometheus::MetricFamily>& out) {
  std::map<std::string, FamilyBuilder> families;
  auto family = [&](std::string_view name, std::string_view help) -> FamilyBuilder& {
    auto it = families.find(std::string(name));
    if (it == families.end()) {
      it = families
               .emplace(std::string(name),
                        FamilyBuilder(std::string(name), std::string(help),
                                      prometheus::MetricType::Counter))
               .first;
    }
    return it->second;
  };
  for (const auto& p : ports) {
    const std::string port = std::to_string(p.port);
    for (const auto& [name, value] : p.counters) {
      if (name == "lifespan") continue;  // a sysfs setting, not a counter
      if (const HwCounterInfo* info = FindHwCounter(name)) {
        family(info->metric, info->help).Add({{"device", p.device}, {"port", port}},
                                             static_cast<double>(value));
      } else {
        family(kGenericMetric, kGenericHelp)
            .Add({{"counter", name}, {"device", p.device}, {"port", port}},
                 static_cast<double>(value));
      }
    }
  }
  for (auto& [name, builder] : families) builder.AppendTo(out);
}

}  // namespace rxe::collectors

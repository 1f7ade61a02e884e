// Placeholder: the daemon entry point is being written (issue 2).
int main() { return 0; }

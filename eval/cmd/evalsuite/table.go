package main

func cmdTable([]string) error { return nil }

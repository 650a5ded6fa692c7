data data token index beta index beta token
value beta parse user
value value build token render value
config cache build build index value
user render token render model view
value render alpha view config
data model value beta
user parse alpha cache alpha token
user build config index test cache

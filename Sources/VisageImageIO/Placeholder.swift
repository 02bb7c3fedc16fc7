import Visage
